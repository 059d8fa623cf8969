"""How a migration declares scheduled jobs: one RunPython per migration, the same steps for
every one of them.

Rows are matched by name with update_or_create: a database that holds a schedule under an
earlier task path gets it pointed at the new one, nothing is duplicated, and an interval an
operator retuned in the admin is kept (only a new row takes the declared type and minutes).
Reversing the migration removes the rows it declared."""

from __future__ import annotations

from typing import Any

from django.db import migrations

# name: (task function, django-q schedule type, minutes for the MINUTES type)
Schedules = dict[str, tuple[str, str, int | None]]


def declare_schedules(schedules: Schedules) -> migrations.RunPython:
    def declare(apps: Any, schema_editor: Any) -> None:
        schedule_model = apps.get_model("django_q", "Schedule")
        for name, (func, schedule_type, minutes) in schedules.items():
            schedule_model.objects.update_or_create(
                name=name,
                defaults={"func": func},
                create_defaults={"func": func, "schedule_type": schedule_type, "minutes": minutes, "repeats": -1},
            )

    def remove(apps: Any, schema_editor: Any) -> None:
        apps.get_model("django_q", "Schedule").objects.filter(name__in=list(schedules)).delete()

    return migrations.RunPython(declare, remove)
