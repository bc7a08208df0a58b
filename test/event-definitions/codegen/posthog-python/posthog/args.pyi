# posthog/args.py of PostHog/posthog-python: the keyword arguments of `capture`.
from datetime import datetime
import numbers
from types import TracebackType
from typing import Any, Dict, Optional, Tuple, Type, TypedDict, Union
from uuid import UUID

from typing_extensions import NotRequired

from posthog.feature_flag_evaluations import FeatureFlagEvaluations
from posthog.types import SendFeatureFlagsOptions

ID_TYPES = Union[numbers.Number, str, UUID, int]

class OptionalCaptureArgs(TypedDict):
    distinct_id: NotRequired[Optional[ID_TYPES]]
    properties: NotRequired[Optional[Dict[str, Any]]]
    timestamp: NotRequired[Optional[Union[datetime, str]]]
    uuid: NotRequired[Optional[Union[str, UUID]]]
    groups: NotRequired[Optional[Dict[str, str]]]
    flags: NotRequired[Optional[FeatureFlagEvaluations]]
    send_feature_flags: NotRequired[Optional[Union[bool, SendFeatureFlagsOptions]]]
    disable_geoip: NotRequired[Optional[bool]]

ExcInfo = Union[
    Tuple[Type[BaseException], BaseException, Optional[TracebackType]],
    Tuple[None, None, None],
]

ExceptionArg = Union[BaseException, ExcInfo]
