"""The two staff roles. reviewer: works the review queue and reads everything it needs;
cannot edit L1 or see tokens. operator: everything except user management."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

REVIEWER = [
    ("memories", "view_memory"),
    ("memories", "change_memory"),
    ("governance", "view_memoryevent"),
    ("governance", "view_trace"),
    ("governance", "view_reviewitem"),
    ("governance", "change_reviewitem"),
    ("governance", "view_layerpolicy"),
    ("governance", "view_auditlog"),
    ("governance", "view_reflectionreport"),
    ("governance", "view_metricsnapshot"),
]
OPERATOR_APPS = ("memories", "governance", "api", "django_q")


def create_roles(apps, schema_editor):
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, verbosity=0, apps=apps)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    reviewer, _ = Group.objects.get_or_create(name="reviewer")
    reviewer.permissions.set([Permission.objects.get(content_type__app_label=app, codename=code) for app, code in REVIEWER])
    operator, _ = Group.objects.get_or_create(name="operator")
    operator.permissions.set(Permission.objects.filter(content_type__app_label__in=OPERATOR_APPS))


def drop_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=["reviewer", "operator"]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("governance", "0002_layer_policies"),
        ("memories", "0002_fts_and_search_state"),
        ("api", "0001_initial"),
        ("django_q", "0018_task_success_index"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]
    operations = [migrations.RunPython(create_roles, drop_roles)]
