# The browser tests restore the migrated roles with serialized_rollback, which re-inserts
# content types by id. A plain transactional test before them re-creates those rows under
# new ids, so every serialized browser test lives here, ahead of the other transactional
# tests in collection order.
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


def _client_for(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def reviewer_client(reviewer):
    return _client_for(reviewer)


@pytest.fixture
def second_reviewer_client(second_reviewer):
    return _client_for(second_reviewer)


@pytest.fixture
def operator_client(operator):
    return _client_for(operator)
