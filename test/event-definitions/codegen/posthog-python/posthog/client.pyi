# posthog/client.py of PostHog/posthog-python: `Client`, with the constructor arguments the usage
# passes, every `capture_…` attribute it has (a generated method of the same name would replace it),
# and the methods the generated code and its usage guide call, typed as the SDK types them:
# `capture` and `capture_ai` are wrapped by the untyped decorator `no_throw()` (since posthog 6.7),
# so their type is `Any`; `capture_exception` is not.
from typing import Any, Optional

from typing_extensions import Unpack

from posthog.args import ExceptionArg, OptionalCaptureArgs
from posthog.capture_compression import CaptureCompression
from posthog.capture_mode import CaptureMode

def no_throw(default_return=None): ...

class Client:
    capture_mode: CaptureMode
    capture_compression: CaptureCompression
    capture_exception_code_variables: Any
    def __init__(
        self,
        project_api_key: str,
        host=None,
        debug=False,
        send=True,
        sync_mode=False,
        personal_api_key=None,
        disabled=False,
    ) -> None: ...
    @no_throw()
    def capture(self, event: str, **kwargs: Unpack[OptionalCaptureArgs]) -> Optional[str]: ...
    @no_throw()
    def capture_ai(self, event: str, **kwargs: Unpack[OptionalCaptureArgs]) -> Optional[str]: ...
    def capture_exception(
        self,
        exception: Optional[ExceptionArg],
        **kwargs: Unpack[OptionalCaptureArgs],
    ) -> Optional[str]: ...
    def flush(self, timeout_seconds: Optional[float] = 10) -> None: ...
    def shutdown(self) -> None: ...
