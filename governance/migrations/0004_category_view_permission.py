"""Both staff roles may browse the category trees (the trees are maintained by the
governed write, so nobody is given change or delete)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations


def grant(apps, schema_editor):
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, verbosity=0, apps=apps)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    view = Permission.objects.get(content_type__app_label="memories", codename="view_category")
    for group in Group.objects.filter(name__in=["reviewer", "operator"]):
        group.permissions.add(view)


def revoke(apps, schema_editor):
    Permission = apps.get_model("auth", "Permission")
    view = Permission.objects.filter(content_type__app_label="memories", codename="view_category").first()
    if view is not None:
        for group in apps.get_model("auth", "Group").objects.filter(name__in=["reviewer", "operator"]):
            group.permissions.remove(view)


class Migration(migrations.Migration):
    dependencies = [
        ("governance", "0003_roles"),
        ("memories", "0005_organise_kind_category_abstracts"),
    ]
    operations = [migrations.RunPython(grant, revoke)]
