"""The organise backfill joins the schedules: kinds, categories and abstracts for
memories written before they existed (and any a trusted import left without them).

Declared like the others, update_or_create by name, so an interval an operator retuned
in the admin is kept."""

from django.db import migrations

SCHEDULES = {
    "organise: kinds, categories, abstracts": ("lingix_site.tasks.organise", "I", 30),
}


def declare(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    for name, (func, schedule_type, minutes) in SCHEDULES.items():
        Schedule.objects.update_or_create(
            name=name,
            defaults={"func": func},
            create_defaults={"func": func, "schedule_type": schedule_type, "minutes": minutes, "repeats": -1},
        )


def remove(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name__in=list(SCHEDULES)).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("lingix_site", "0001_schedules"),
        ("memories", "0005_organise_kind_category_abstracts"),
    ]
    operations = [migrations.RunPython(declare, remove)]
