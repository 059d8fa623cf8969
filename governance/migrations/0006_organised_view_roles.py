"""Both staff roles read the organised view: entities, their links and relations, and the
suggestions signals raise (all read-only in the admin)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

VIEW = [("memories", "view_entity"), ("memories", "view_memoryentity"), ("memories", "view_relation"), ("governance", "view_suggestion")]


def grant(apps, schema_editor):
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, verbosity=0, apps=apps)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    permissions = [Permission.objects.get(content_type__app_label=app, codename=code) for app, code in VIEW]
    for group in Group.objects.filter(name__in=["reviewer", "operator"]):
        group.permissions.add(*permissions)


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    permissions = Permission.objects.filter(codename__in=[code for _, code in VIEW])
    for group in Group.objects.filter(name__in=["reviewer", "operator"]):
        group.permissions.remove(*permissions)


class Migration(migrations.Migration):
    dependencies = [
        ("governance", "0005_suggestions"),
        ("memories", "0006_entities_and_relations"),
    ]
    operations = [migrations.RunPython(grant, revoke)]
