"""Guests, accounts and tokens (docs/protocol.md, "Identity and the token").

A token is 32 random bytes (256 bits) from :mod:`secrets`; the database keeps
only its SHA-256 hash, found by index and compared in constant time. Passwords
are argon2id hashes (argon2-cffi's defaults).
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import unicodedata
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from domino.server.protocol import ProfileOut
from domino.server.settings import Settings
from domino.server.storage.profiles import NameTaken, ProfileStore
from domino.table.xp import level_for, xp_for_level


class PeopleError(Exception):
    """A refused sign-in or name: ``code`` is a catalogue key."""

    def __init__(self, code: str, status: int = 400, /, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.status = status
        self.params = params


def new_token() -> str:
    """A fresh random token (256 bits, URL-safe text)."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What the database stores instead of the token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_id(prefix: str) -> str:
    """A random identifier such as ``p_3f9a1c2b7d5e4f60``."""
    return f"{prefix}_{secrets.token_hex(8)}"


def clean_name(raw: str, limit: int) -> str:
    """A display name: NFC, trimmed, inner whitespace collapsed, no control characters.

    >>> clean_name("  Anna   Maria ", 24)
    'Anna Maria'
    """
    text = unicodedata.normalize("NFC", raw)
    if any(
        unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs") and not ch.isspace() for ch in text
    ):
        raise PeopleError("name_bad_chars")
    name = " ".join(text.split())
    if not name:
        raise PeopleError("name_empty")
    if len(name) > limit:
        raise PeopleError("name_too_long", limit=limit)
    return name


def profile_out(row: dict[str, Any]) -> ProfileOut:
    """The public form of a profile row, with its level (RULES.md §12)."""
    xp = int(row["xp"])
    level = level_for(xp)
    return ProfileOut(
        id=row["id"],
        name=row["name"],
        kind=row["kind"],
        xp=xp,
        level=level,
        level_xp=xp_for_level(level),
        next_level_xp=xp_for_level(level + 1),
        played=int(row["played"]),
        won=int(row["won"]),
    )


class People:
    """Sign-ups, sign-ins and token checks on top of the database."""

    def __init__(self, db: ProfileStore, settings: Settings) -> None:
        self.db = db
        self.settings = settings
        self.hasher = PasswordHasher()
        self._argon = asyncio.Semaphore(2)

    async def guest(self, raw_name: str) -> tuple[str, dict[str, Any]]:
        """A new guest profile and its token."""
        name = clean_name(raw_name, self.settings.name_max)
        token, pid = new_token(), new_id("p")
        await self.db.create_profile(
            pid, name, "guest", self.settings.clock.now(), token_hash=token_hash(token)
        )
        row = await self.db.profile(pid)
        assert row is not None
        return token, row

    async def _hash(self, password: str) -> str:
        # argon2 is slow on purpose (tens of ms, 64 MiB each): off the event loop, so no
        # match waits, and at most two at a time, so a burst of sign-ups stays bounded.
        async with self._argon:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, stored: str, password: str) -> None:
        async with self._argon:
            await asyncio.to_thread(self.hasher.verify, stored, password)

    async def _password(self, password: str) -> str:
        s = self.settings
        if len(password) < s.password_min:
            raise PeopleError("password_too_short", limit=s.password_min)
        if len(password) > s.password_max:
            raise PeopleError("password_too_long", limit=s.password_max)
        return await self._hash(password)

    async def account(
        self, raw_name: str, password: str, current: str | None
    ) -> tuple[str | None, dict[str, Any]]:
        """Make an account; with ``current`` (a guest's profile id) the guest becomes it.

        Returns a new token for a new profile, ``None`` when the guest keeps its token.
        """
        name = clean_name(raw_name, self.settings.name_max)
        key = name.casefold()
        pw_hash = await self._password(password)
        try:
            if current is not None:
                row = await self.db.profile(current)
                if row is None:
                    raise PeopleError("bad_token", 401)
                if row["kind"] == "account":
                    raise PeopleError("already_account", 409)
                await self.db.make_account(current, name, key, pw_hash)
                token: str | None = None
                pid = current
            else:
                token, pid = new_token(), new_id("p")
                await self.db.create_profile(
                    pid,
                    name,
                    "account",
                    self.settings.clock.now(),
                    name_key=key,
                    password_hash=pw_hash,
                    token_hash=token_hash(token),
                )
        except NameTaken as exc:
            raise PeopleError("name_taken", 409, name=name) from exc
        row = await self.db.profile(pid)
        assert row is not None
        return token, row

    async def rename(self, pid: str, raw_name: str) -> dict[str, Any]:
        """Change a profile's name (guest or account; an account's stays unique)."""
        name = clean_name(raw_name, self.settings.name_max)
        row = await self.db.profile(pid)
        if row is None:
            raise PeopleError("bad_token", 401)
        key = name.casefold() if row["kind"] == "account" else None
        try:
            await self.db.rename_profile(pid, name, key)
        except NameTaken as exc:
            raise PeopleError("name_taken", 409, name=name) from exc
        row = await self.db.profile(pid)
        assert row is not None
        return row

    async def login(self, raw_name: str, password: str) -> tuple[str, dict[str, Any]]:
        """Check name and password; a new token for the account."""
        try:
            key = clean_name(raw_name, self.settings.name_max).casefold()
        except PeopleError as exc:
            raise PeopleError("login_failed", 401) from exc
        row = await self.db.account(key)
        stored = row["password_hash"] if row else None
        try:
            if not stored:
                # Hash anyway so an unknown name costs as long as a wrong password.
                await self._hash(password)
                raise PeopleError("login_failed", 401)
            await self._verify(stored, password)
        except (VerificationError, InvalidHashError) as exc:
            raise PeopleError("login_failed", 401) from exc
        assert row is not None
        if self.hasher.check_needs_rehash(stored):
            await self.db.set_password_hash(row["id"], await self._hash(password))
        token = new_token()
        await self.db.add_token(token_hash(token), row["id"], self.settings.clock.now())
        return token, row

    async def resolve(self, token: str | None) -> str | None:
        """The profile id of a token, or ``None``."""
        if not token or len(token) > 200:
            return None
        return await self.db.profile_by_token(token_hash(token))

    async def logout(self, token: str) -> None:
        """Void the token."""
        await self.db.delete_token(token_hash(token))
