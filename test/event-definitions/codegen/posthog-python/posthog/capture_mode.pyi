# posthog/capture_mode.py of PostHog/posthog-python: the capture wire protocol setting.
from enum import Enum

class CaptureMode(str, Enum):
    V0 = "v0"
    V1 = "v1"
