# The part of the `posthog` Python SDK (PostHog/posthog-python) that the typed capture code PostHog
# generates (and ours, src/event-definitions/codegen/python.ts) uses, with the SDK's own names and
# types, so that code can be type-checked here, where PyPI is out of reach.
# test/event-definitions/codegen/toolchains.test.ts puts this folder on MYPYPATH.
from posthog.client import Client as Client

class Posthog(Client):
    """The customer-facing client (posthog/__init__.py: `class Posthog(Client)`)."""
