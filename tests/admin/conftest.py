import pytest
from django.contrib.auth.models import Group


def _staff(django_user_model, username: str, group: str):
    user = django_user_model.objects.create_user(username=username, password="pw-" + username, is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def reviewer(db, django_user_model):
    return _staff(django_user_model, "reviewer_li", "reviewer")


@pytest.fixture
def second_reviewer(db, django_user_model):
    return _staff(django_user_model, "reviewer_wang", "reviewer")


@pytest.fixture
def operator(db, django_user_model):
    return _staff(django_user_model, "operator_zhao", "operator")


@pytest.fixture
def reviewer_client(client, reviewer):
    client.force_login(reviewer)
    return client


@pytest.fixture
def operator_client(client, operator):
    client.force_login(operator)
    return client
