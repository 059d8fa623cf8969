from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GovernanceConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "governance"
    verbose_name = _("Governance")

    def ready(self) -> None:
        # Deep search lives in memories, which may not import governance: the model-backed
        # rewrite/rerank (gateway model, cross-encoder) is injected here (see
        # governance.search_hooks). The factory imports the clients on first use, so
        # processes that never deep-search never load them.
        from memories.search.deep import register_hooks_factory

        register_hooks_factory(_configured_deep_hooks)

        from governance.safety_net import connect

        connect()


def _configured_deep_hooks():
    from governance.search_hooks import configured_deep_hooks

    return configured_deep_hooks()
