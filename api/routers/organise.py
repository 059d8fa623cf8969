"""Organised knowledge over the API: the category trees in a token's scope."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Query, Router, Schema
from pydantic import Field

from api.security import scope_for

router = Router(tags=["memory"])


class CategoryNodeOut(Schema):
    id: int
    name: str
    path: str
    depth: int
    memory_count: int = Field(..., description="active memories in this node and under it")
    episodic_count: int
    semantic_count: int
    summary: str
    updated_at: str | None
    children: list[CategoryNodeOut]


class CategoryTreeOut(Schema):
    advertiser: str | None
    scope: str
    categories: list[CategoryNodeOut]


class CategoriesOut(Schema):
    trees: list[CategoryTreeOut]


class CategoriesQuery(Schema):
    advertiser: str | None = Field(None, min_length=1, max_length=64, description="that advertiser's tree plus the global one")


@router.get("/categories", response={200: CategoriesOut}, summary="The category trees with counts and summaries")
def categories(request: HttpRequest, filters: Query[CategoriesQuery]) -> dict[str, Any]:
    from memories.category_selectors import category_tree

    return {"trees": category_tree(advertisers=scope_for(request.auth, filters.advertiser))}
