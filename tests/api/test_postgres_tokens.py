"""PostgreSQL's plpgsql tokenizer must produce exactly the tokens of memories.search.tokens,
or the keyword index and the Python-built queries would disagree."""

import pytest
from django.db import connection

from memories.search.tokens import fts_document

pytestmark = [pytest.mark.django_db]

SAMPLES = [
    "医药OTC冷启动采用三阶段出价：前3天保守出价",
    "brand_A 偏好晚间20点-23点加大出价，该时段转化率比白天高35%。",
    "ROI提升到2.9, CTR 3.5倍; brand_B's CPC 1.2元",
    "For brand_B skincare, video creatives under 15 seconds had 28% higher CTR.",
    "双十二大促预热期已开始，全平台CPM较上周上涨约25%",
    "价",
    'x" (AND NEAR( a-b * col:value',
    "",
]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the plpgsql twin exists only on PostgreSQL")
@pytest.mark.parametrize("text", SAMPLES)
def test_plpgsql_tokens_match_python(text):
    with connection.cursor() as cursor:
        cursor.execute("SELECT lingix_fts_tokens(%s)", [text])
        assert cursor.fetchone()[0] == fts_document(text)
