"""How a migration declares scheduled jobs: one RunPython per migration, the same steps for
every one of them.

Rows are matched by name with update_or_create: a database that holds a schedule under an
earlier task path gets it pointed at the new one, nothing is duplicated, and an interval an
operator retuned in the admin is kept (only a new row takes the declared type and minutes).
Reversing the migration removes the rows it declared.

Historical migrations run these functions: change what they do only in a way every earlier
migration may run again. They are module-level and bound with functools.partial, so the
migration writer can serialise them (squashmigrations)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import migrations

# name: (task function, django-q schedule type, minutes for the MINUTES type)
Schedules = dict[str, tuple[str, str, int | None]]


def declare(schedules: Schedules, apps: Any, schema_editor: Any) -> None:
    schedule_model = apps.get_model("django_q", "Schedule")
    for name, (func, schedule_type, minutes) in schedules.items():
        schedule_model.objects.update_or_create(
            name=name,
            defaults={"func": func},
            create_defaults={"func": func, "schedule_type": schedule_type, "minutes": minutes, "repeats": -1},
        )


def remove(schedules: Schedules, apps: Any, schema_editor: Any) -> None:
    apps.get_model("django_q", "Schedule").objects.filter(name__in=list(schedules)).delete()


def declare_schedules(schedules: Schedules) -> migrations.RunPython:
    return migrations.RunPython(partial(declare, schedules), partial(remove, schedules))
