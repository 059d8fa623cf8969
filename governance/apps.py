from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GovernanceConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "governance"
    verbose_name = _("Governance")

    def ready(self) -> None:
        # Deep search lives in memories, which may not import governance: the model-backed
        # rewrite/rerank is injected here (see governance.search_hooks). The factory imports
        # the chat client on first use, so processes that never deep-search never load it.
        from memories.search.deep import register_hooks_factory

        register_hooks_factory(_gateway_deep_hooks)

        from governance.safety_net import connect

        connect()


def _gateway_deep_hooks():
    from governance.search_hooks import gateway_deep_hooks

    return gateway_deep_hooks()
