"""django-q2's qcluster, refusing to start without a configured judge provider."""

from django_q.management.commands.qcluster import Command as QClusterCommand

from lingix_site.startup import require_provider_or_exit


class Command(QClusterCommand):
    def handle(self, *args, **options):
        require_provider_or_exit("scheduler (qcluster)")
        return super().handle(*args, **options)
