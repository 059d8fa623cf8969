"""The table behind the database cache that holds rate-limit counts on PostgreSQL."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor) -> None:
    # createcachetable makes a table only for caches configured with the database
    # backend, and skips one that exists, so this is a no-op on SQLite.
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("api", "0002_token_can_review")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
