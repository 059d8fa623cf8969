from django.db import migrations

DEFAULTS = {
    "L1": {"default_ttl_hours": None, "capacity_per_advertiser": None, "sampled_audit_rate": 0.0},
    "L2": {"default_ttl_hours": None, "capacity_per_advertiser": 500, "sampled_audit_rate": 0.05},
    "L3": {"default_ttl_hours": 24, "capacity_per_advertiser": 300, "sampled_audit_rate": 0.05},
    "L4": {"default_ttl_hours": None, "capacity_per_advertiser": 200, "sampled_audit_rate": 0.0},
}


def create_policies(apps, schema_editor):
    LayerPolicy = apps.get_model("governance", "LayerPolicy")
    for layer, values in DEFAULTS.items():
        LayerPolicy.objects.update_or_create(layer=layer, defaults=values)


class Migration(migrations.Migration):
    dependencies = [("governance", "0001_initial")]
    operations = [migrations.RunPython(create_policies, migrations.RunPython.noop)]
