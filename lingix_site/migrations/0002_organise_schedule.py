"""The organise backfill joins the schedules: kinds, categories and abstracts for
memories written before they existed (and any a trusted import left without them).

Declared like the others, update_or_create by name, so an interval an operator retuned
in the admin is kept."""

from django.db import migrations

from lingix_site.schedules import declare_schedules

SCHEDULES = {
    "organise: kinds, categories, abstracts": ("lingix_site.tasks.organise", "I", 30),
}


class Migration(migrations.Migration):
    dependencies = [
        ("lingix_site", "0001_schedules"),
        ("memories", "0005_organise_kind_category_abstracts"),
    ]
    operations = [declare_schedules(SCHEDULES)]
