from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MemoriesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "memories"
    verbose_name = _("Memories")

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from memories.search.sqlite_functions import register_sqlite_functions

        connection_created.connect(register_sqlite_functions, dispatch_uid="lingix_sqlite_functions")
