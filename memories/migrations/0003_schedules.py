"""Every lifecycle schedule, declared once. update_or_create by name, so re-running the
migration (or editing an interval here in a later migration) never duplicates a job;
operators may retune intervals in the admin afterwards."""
from django.db import migrations

# name: (task function, schedule type, minutes for the MINUTES type)
SCHEDULES = {
    "lifecycle: expire L3": ("memories.tasks.expire", "I", 10),
    "lifecycle: embedding backfill": ("memories.tasks.backfill", "I", 15),
    "lifecycle: decay + evict": ("memories.tasks.evict", "H", None),
    "metrics: snapshot": ("memories.tasks.snapshot", "H", None),
    "lifecycle: promote L2 to L4": ("memories.tasks.promote", "D", None),
    "reflection": ("memories.tasks.reflect", "D", None),
}


def declare(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    for name, (func, schedule_type, minutes) in SCHEDULES.items():
        Schedule.objects.update_or_create(
            name=name,
            defaults={"func": func, "schedule_type": schedule_type, "minutes": minutes, "repeats": -1},
        )


def remove(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name__in=list(SCHEDULES)).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0002_fts_and_search_state"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]
    operations = [migrations.RunPython(declare, remove)]
