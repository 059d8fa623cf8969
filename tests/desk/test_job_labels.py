"""Every scheduled job the migrations declare is named on the desk by what it does, in both
languages, not by its schedule name or function path."""

import pytest
from django.utils import translation
from django_q.models import Schedule

from desk.admin.tasks import JOB_LABELS, job_label


@pytest.mark.django_db
def test_every_declared_schedule_has_a_label_in_both_languages():
    schedules = list(Schedule.objects.all())
    assert len(schedules) >= 8
    for schedule in schedules:
        assert schedule.func in JOB_LABELS, schedule.func
        with translation.override("zh-hans"):
            chinese = job_label(schedule)
        with translation.override("en"):
            english = job_label(schedule)
        assert chinese != english and not chinese.isascii(), (schedule.func, chinese)
