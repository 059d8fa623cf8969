"""/distill with an advertiser or business line that holds a credential or personal data,
sent by a token of every advertiser (the only kind that may name a new advertiser): a 422
before anything is stored. The run row keeps the advertiser as its scope, so refusing
only each candidate's event (which skips that candidate) would still store the code."""

import pytest

from governance.models import DistillRun, MemoryEvent
from tests.security.stored import database_bytes

pytestmark = pytest.mark.django_db

MESSAGES = [{"role": "user", "content": "以后 brand_A 医药OTC 冷启动出价都不要超过2元"}]


@pytest.mark.parametrize(
    ("field", "code"),
    [
        ("advertiser", "ghp_Tr5Yh9Uj3Ik7Ol1Pa4Sd8Fg2Hj6Kl0Zx3Cv7B"),
        ("advertiser", "13917765432"),
        ("business_line", "LTAI5tQw3Er7Ty1Ui5Op9As2"),
    ],
)
def test_a_code_holding_a_credential_is_refused_before_the_run_is_stored(operator_token, field, code):
    body = {"session_id": "sess-双11-codes", "messages": MESSAGES, field: code}
    if field == "business_line":
        body["advertiser"] = "brand_A"
    response = operator_token.post("/distill", body)
    assert response.status_code == 422, response.content
    assert response.json()["detail"].startswith(f"{field} looks like a credential or personal data")
    assert not DistillRun.objects.exists() and not MemoryEvent.objects.exists()
    assert code.encode() not in database_bytes()
