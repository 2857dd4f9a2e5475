"""Routes for derender (being built)."""

from fastapi import APIRouter

router = APIRouter()
