"""Routes for tokenize (being built)."""

from fastapi import APIRouter

router = APIRouter()
