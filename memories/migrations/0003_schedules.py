"""Declared the scheduled jobs while their task module lived in this app. The jobs and
their one declaration have since moved up, beside the task module of the site app, whose
migration rewrites rows this one once wrote; this stays, empty, so the migration graph
and databases that applied it keep their history."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0002_fts_and_search_state"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]
    operations = []
