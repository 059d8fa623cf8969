# Reasons as codes beside their English text; audit event types as choices.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("governance", "0007_consolidation_kinds"),
    ]

    operations = [
        migrations.AddField(
            model_name="memoryevent",
            name="reason_codes",
            field=models.JSONField(blank=True, default=list, verbose_name="reason codes"),
        ),
        migrations.AddField(
            model_name="reviewitem",
            name="reason_codes",
            field=models.JSONField(blank=True, default=list, verbose_name="reason codes"),
        ),
        migrations.AddField(
            model_name="trace",
            name="reason_codes",
            field=models.JSONField(blank=True, default=list, verbose_name="reason codes"),
        ),
        migrations.AlterField(
            model_name="auditlog",
            name="event_type",
            field=models.CharField(
                choices=[
                    ("memory.import", "trusted import"),
                    ("memory.admin_edit", "memory edited in the admin"),
                    ("memory.archive", "memory archived in the admin"),
                    ("memory.restore", "memory restored in the admin"),
                    ("memory.reembed", "memories re-embedded"),
                    ("memory.l1_write", "L1 core rule written"),
                    ("memory.l1_status", "L1 core rule status changed"),
                    ("memory.erase", "memory erased (tombstone left)"),
                    ("review.approved", "review item approved"),
                    ("review.rejected", "review item rejected"),
                    ("review.overturned", "sampled audit overturned"),
                    ("layer_policy.update", "layer policy changed"),
                    ("api_token.created", "API token created"),
                    ("api_token.revoked", "API token revoked"),
                    ("database.restore", "database restored from a backup"),
                ],
                db_index=True,
                max_length=64,
                verbose_name="event type",
            ),
        ),
    ]
