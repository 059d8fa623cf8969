"""The one retry policy (judges/retry.py): how many calls, how long the waits, which errors."""

import time

import pytest

from judges.retry import RetryPolicy, call_with_retry


class Flaky:
    """Fails with the given errors in turn, then answers."""

    def __init__(self, *errors: BaseException):
        self.errors = list(errors)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "好"


def test_retries_until_an_answer():
    fn = Flaky(ConnectionError("断开"), ConnectionError("again"))
    policy = RetryPolicy(attempts=3, first_wait=0.01, max_wait=1)
    assert call_with_retry(fn, policy=policy, retry_on=lambda e: isinstance(e, ConnectionError)) == "好"
    assert fn.calls == 3


def test_the_last_error_reaches_the_caller_after_the_budget():
    fn = Flaky(*[ConnectionError(str(n)) for n in range(5)])
    with pytest.raises(ConnectionError, match="1"):
        call_with_retry(fn, policy=RetryPolicy(attempts=2, first_wait=0.0, max_wait=0), retry_on=lambda e: True)
    assert fn.calls == 2


def test_an_error_not_worth_retrying_is_raised_at_once():
    fn = Flaky(ValueError("bad input"))
    with pytest.raises(ValueError):
        call_with_retry(fn, policy=RetryPolicy(attempts=5, first_wait=0.0, max_wait=0), retry_on=lambda e: isinstance(e, ConnectionError))
    assert fn.calls == 1


def test_waits_double_with_jitter_and_stay_under_the_cap():
    policy = RetryPolicy(attempts=6, first_wait=0.5, max_wait=3.0)
    for retry, base in [(1, 0.5), (2, 1.0), (3, 2.0)]:
        waits = [policy.wait_before(retry) for _ in range(200)]
        assert min(waits) >= base and max(waits) <= min(base * 1.5, 3.0)
        assert len(set(waits)) > 1  # jittered
    assert policy.wait_before(5) == 3.0
    assert policy.wait_before(1, at_least=2.5) == 2.5 and policy.wait_before(1, at_least=60) == 3.0


def test_a_wait_hint_is_honoured():
    fn = Flaky(ConnectionError("429"))
    started = time.perf_counter()
    call_with_retry(fn, policy=RetryPolicy(attempts=2, first_wait=0.0, max_wait=1), retry_on=lambda e: True, wait_hint=lambda e: 0.3)
    assert time.perf_counter() - started >= 0.3


def test_the_gateway_policy_comes_from_the_configuration(env):
    env(MEMORY_LLM_MAX_RETRIES="4", MEMORY_LLM_BACKOFF_SECONDS="0.2", MEMORY_LLM_BACKOFF_MAX_SECONDS="5")
    assert RetryPolicy.from_config() == RetryPolicy(attempts=5, first_wait=0.2, max_wait=5.0)
    assert RetryPolicy.from_config(retries=0).attempts == 1
