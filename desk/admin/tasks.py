"""The scheduled lifecycle jobs (django-q2's Schedule) as the desk shows them: each job by
what it does, in the reader's language, and its task function as code. django-q2's own admin
stays in charge of editing; only the list and the page title change."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django_q.admin import ScheduleAdmin
from django_q.models import Schedule

# The jobs lingix_site/migrations declares, by task function (a name can be edited, the function not).
JOB_LABELS = {
    "lingix_site.tasks.expire": _("expire L3 memories past their TTL"),
    "lingix_site.tasks.backfill": _("embed memories without a current vector"),
    "lingix_site.tasks.evict": _("decay, tier and evict"),
    "lingix_site.tasks.snapshot": _("metrics snapshot"),
    "lingix_site.tasks.promote": _("promote mature L2 strategies to L4 templates"),
    "lingix_site.tasks.reflect": _("reflection"),
    "lingix_site.tasks.organise": _("organise: kinds, categories, abstracts"),
    "lingix_site.tasks.vector_log": _("trim the vector index's deletion log"),
}


def job_label(schedule: Schedule) -> str:
    label = JOB_LABELS.get(schedule.func)
    return str(label) if label is not None else schedule.name or schedule.func


admin.site.unregister(Schedule)


@admin.register(Schedule)
class JobScheduleAdmin(ScheduleAdmin):
    list_display = ("id", "job", "func_shown", "schedule_type", "repeats", "cluster", "next_run", "get_last_run", "get_success")
    list_display_links = ("id", "job")

    @admin.display(description=_("job"), ordering="name")
    def job(self, obj):
        return job_label(obj)

    @admin.display(description=_("task function"), ordering="func")
    def func_shown(self, obj):
        return format_html("<code>{}</code>", obj.func)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, object_id)
        shown = {"object_shown": job_label(obj), "subtitle": job_label(obj)} if obj is not None else {}
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), **shown})
