"""Routes for render (being built)."""

from fastapi import APIRouter

router = APIRouter()
