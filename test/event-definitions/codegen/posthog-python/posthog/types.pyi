# posthog/types.py of PostHog/posthog-python: the options of `send_feature_flags`.
from typing import Any, Dict, List, Optional, TypedDict

class SendFeatureFlagsOptions(TypedDict, total=False):
    should_send: bool
    only_evaluate_locally: Optional[bool]
    person_properties: Optional[Dict[str, Any]]
    group_properties: Optional[Dict[str, Dict[str, Any]]]
    flag_keys_filter: Optional[List[str]]
