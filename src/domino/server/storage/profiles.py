"""Profiles (guests and accounts) and the hashes of their sign-in tokens."""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from domino.server.storage.engine import Core

__all__ = ["NameTaken", "ProfileStore"]


class NameTaken(Exception):
    """An account with that name exists already."""


class ProfileStore(Core):
    """The ``profiles`` and ``tokens`` tables."""

    async def create_profile(
        self,
        pid: str,
        name: str,
        kind: str,
        now: float,
        *,
        name_key: str | None = None,
        password_hash: str | None = None,
        token_hash: str | None = None,
    ) -> None:
        """Insert a profile (and its first token); :class:`NameTaken` for a used account name."""
        try:
            async with self._write() as conn:
                await conn.execute(
                    self.t.profiles.insert().values(
                        id=pid,
                        name=name,
                        name_key=name_key,
                        kind=kind,
                        password_hash=password_hash,
                        xp=0,
                        played=0,
                        won=0,
                        created_at=now,
                    )
                )
                if token_hash is not None:
                    await conn.execute(
                        self.t.tokens.insert().values(
                            token_hash=token_hash, profile_id=pid, created_at=now
                        )
                    )
        except IntegrityError as exc:
            raise NameTaken(name) from exc

    async def make_account(self, pid: str, name: str, name_key: str, password_hash: str) -> None:
        """Turn a guest into an account (same id, XP and history)."""
        try:
            async with self._write() as conn:
                await conn.execute(
                    self.t.profiles.update()
                    .where(self.t.profiles.c.id == pid)
                    .values(
                        name=name, name_key=name_key, kind="account", password_hash=password_hash
                    )
                )
        except IntegrityError as exc:
            raise NameTaken(name) from exc

    async def rename_profile(self, pid: str, name: str, name_key: str | None) -> None:
        """A new display name (``name_key`` for an account, whose names are unique);
        :class:`NameTaken` when another account has it."""
        values: dict[str, Any] = {"name": name}
        if name_key is not None:
            values["name_key"] = name_key
        try:
            async with self._write() as conn:
                await conn.execute(
                    self.t.profiles.update().where(self.t.profiles.c.id == pid).values(**values)
                )
        except IntegrityError as exc:
            raise NameTaken(name) from exc

    async def set_password_hash(self, pid: str, password_hash: str) -> None:
        """Store a re-hashed password (argon2 parameters changed)."""
        async with self._write() as conn:
            await conn.execute(
                self.t.profiles.update()
                .where(self.t.profiles.c.id == pid)
                .values(password_hash=password_hash)
            )

    async def profile(self, pid: str) -> dict[str, Any] | None:
        """The profile row, or ``None``."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(sa.select(self.t.profiles).where(self.t.profiles.c.id == pid))
            ).first()
        return dict(row._mapping) if row else None

    async def profiles(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Several profile rows by id."""
        if not ids:
            return {}
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.select(self.t.profiles).where(self.t.profiles.c.id.in_(list(ids)))
            )
            return {r.id: dict(r._mapping) for r in rows}

    async def account(self, name_key: str) -> dict[str, Any] | None:
        """The account row with that (lower-cased) name, or ``None``."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(self.t.profiles).where(self.t.profiles.c.name_key == name_key)
                )
            ).first()
        return dict(row._mapping) if row else None

    async def add_token(self, token_hash: str, pid: str, now: float) -> None:
        """Store a token's hash for a profile."""
        async with self._write() as conn:
            await conn.execute(
                self.t.tokens.insert().values(token_hash=token_hash, profile_id=pid, created_at=now)
            )

    async def profile_by_token(self, token_hash: str) -> str | None:
        """The profile id a token hash belongs to (the final comparison is constant-time)."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(self.t.tokens.c.token_hash, self.t.tokens.c.profile_id).where(
                        self.t.tokens.c.token_hash == token_hash
                    )
                )
            ).first()
        if row is None or not hmac.compare_digest(row.token_hash, token_hash):
            return None
        return str(row.profile_id)

    async def delete_token(self, token_hash: str) -> None:
        """Void a token (log out)."""
        async with self._write() as conn:
            await conn.execute(
                self.t.tokens.delete().where(self.t.tokens.c.token_hash == token_hash)
            )
