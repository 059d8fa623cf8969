"""The trim of the vector index's deletion log joins the schedules. It used to run inside
a search (the refresh that applied deletes), which made a read write to the database; a
search now only reads the log and this job trims it (memories/lifecycle/vector_log.py).

Hourly: a run removes only the deletes older than the newest LOG_KEEP
(memories/search/vectors.py), so the interval bounds how far the log grows past that, not
which process has to load in full. Declared like the others, update_or_create by name, so an interval
an operator retuned in the admin is kept."""

from django.db import migrations

from lingix_site.schedules import declare_schedules

SCHEDULES = {
    "lifecycle: vector deletion log": ("lingix_site.tasks.vector_log", "H", None),
}


class Migration(migrations.Migration):
    dependencies = [
        ("lingix_site", "0002_organise_schedule"),
        ("memories", "0010_vector_deletion_log"),
    ]
    operations = [declare_schedules(SCHEDULES)]
