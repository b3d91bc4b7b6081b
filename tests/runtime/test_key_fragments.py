"""A key's fragment, any run of at least ``FRAGMENT_LEN`` (8) consecutive characters of it, is
scrubbed like the whole key: a server that echoes part of the key in its error body (masked
in the middle, cut at the end) leaves none of it in the error, the recorded failure or the
message a user sees (docs/providers.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maai.runtime.call_errors import ModelCallError
from maai.runtime.providers import FRAGMENT_LEN, scrub
from tests.runtime.loopback_http import LoopbackServer, Reply, chat_completion, error_body
from tests.runtime.loopback_http import loopback_server as _loopback_server
from tests.support.provider_calls import KEY, Recorder, make_request, run_call

SECRET = "sk-proj-Q7vLm2XkP9dRt4WzB8nYc3Hs"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackServer]:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    with _loopback_server() as srv:
        yield srv


@pytest.mark.parametrize(
    "echoed",
    [
        SECRET[:12] + "*" * 12 + SECRET[-8:],  # OpenAI's masked echo: both ends kept
        SECRET[3:19],  # a piece from the middle
        SECRET[-FRAGMENT_LEN:],  # exactly a fragment
    ],
)
def test_every_fragment_of_a_key_is_scrubbed(echoed: str) -> None:
    clean = scrub(f"Incorrect API key provided: {echoed}. Check it.", extra=[SECRET])
    assert clean.startswith("Incorrect API key provided: ") and clean.endswith(". Check it.")
    for start in range(len(SECRET) - FRAGMENT_LEN + 1):
        assert SECRET[start : start + FRAGMENT_LEN] not in clean


def test_text_sharing_less_than_a_fragment_with_the_key_is_kept() -> None:
    text = f"model {SECRET[8:15]} not found; request id req_{SECRET[-7:]}"
    assert scrub(text, extra=[SECRET]) == text


@settings(max_examples=60, deadline=None)
@given(
    start=st.integers(0, len(SECRET) - FRAGMENT_LEN),
    length=st.integers(FRAGMENT_LEN, len(SECRET)),
    before=st.text(max_size=20),
    after=st.text(max_size=20),
)
def test_no_fragment_survives_whatever_surrounds_it(
    start: int, length: int, before: str, after: str
) -> None:
    fragment = SECRET[start : start + length]
    clean = scrub(before + fragment + after, extra=[SECRET])
    for i in range(len(SECRET) - FRAGMENT_LEN + 1):
        assert SECRET[i : i + FRAGMENT_LEN] not in clean


def test_a_server_echoing_a_fragment_of_the_key_leaves_none_of_it(
    server: LoopbackServer,
) -> None:
    echoed = KEY[:10] + "****" + KEY[-9:]
    server.script(
        Reply(401, error_body(f"Incorrect API key provided: {echoed}", "invalid_request_error")),
        Reply(body=chat_completion("must not be asked")),
    )
    recorder = Recorder()
    with pytest.raises(ModelCallError) as caught:
        run_call(server, make_request(), recorder)
    (failure,) = recorder.failures
    for text in (str(caught.value), failure.model_dump_json(), repr(caught.value.failures)):
        assert "Incorrect API key provided" in text
        assert KEY[:10] not in text and KEY[-9:] not in text
