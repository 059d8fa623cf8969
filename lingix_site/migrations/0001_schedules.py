"""The scheduled jobs, pointed at the task module that calls them (lingix_site/tasks.py).

update_or_create by name: a database that already holds these schedules under their
earlier module path (memories.tasks) gets the same rows pointed at lingix_site.tasks, with
nothing duplicated and any interval an operator retuned in the admin kept; a new database
gets them as declared here."""

from django.db import migrations

from lingix_site.schedules import declare_schedules

SCHEDULES = {
    "lifecycle: expire L3": ("lingix_site.tasks.expire", "I", 10),
    "lifecycle: embedding backfill": ("lingix_site.tasks.backfill", "I", 15),
    "lifecycle: decay + evict": ("lingix_site.tasks.evict", "H", None),
    "metrics: snapshot": ("lingix_site.tasks.snapshot", "H", None),
    "lifecycle: promote L2 to L4": ("lingix_site.tasks.promote", "D", None),
    "reflection": ("lingix_site.tasks.reflect", "D", None),
}


class Migration(migrations.Migration):
    dependencies = [
        # After the migration that first declared these names, so it is the one that rewrites them.
        ("memories", "0003_schedules"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]
    operations = [declare_schedules(SCHEDULES)]
