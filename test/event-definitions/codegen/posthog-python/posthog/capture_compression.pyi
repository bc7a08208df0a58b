# posthog/capture_compression.py of PostHog/posthog-python: the capture compression setting.
from enum import Enum

class CaptureCompression(str, Enum):
    NONE = "none"
    GZIP = "gzip"
    DEFLATE = "deflate"
    ZSTD = "zstd"
