"""The one catalogue of user-facing text: German first, English beside it.

Every string a player reads comes from here, looked up by a stable key
(the ``code`` of an error, the name of a label). ``t(key, **params)``
formats the German text; a missing key falls back to English, then to the
key itself, so a new code never crashes the server.

>>> t("lobby_not_found", code="ABC123")
'Es gibt keine Lobby mit dem Code ABC123.'
>>> t("no_such_key")
'no_such_key'

The catalogues are served to the browser as ``/api/i18n/{lang}``. Other
packages (table, bots, web) may add keys; keep both languages in step.
"""

from __future__ import annotations

from typing import Any, Final

DEFAULT_LANG: Final = "de"

_DE: dict[str, str] = {
    # -- connection and protocol ------------------------------------------------
    "bad_json": "Die Nachricht ist kein gültiges JSON.",
    "bad_message": "Die Nachricht ist unvollständig oder falsch aufgebaut: {detail}",
    "unknown_type": "Unbekannte Nachricht „{type}“.",
    "hello_first": "Zuerst muss „hello“ mit deinem Token kommen.",
    "hello_twice": "Du bist schon angemeldet.",
    "bad_protocol_version": "Diese Protokollversion ({version}) kennt der Server nicht.",
    "bad_token": "Dein Zugang ist unbekannt oder abgelaufen. Bitte melde dich neu an.",
    "frame_too_big": "Die Nachricht ist zu groß (höchstens {limit} Byte).",
    "rate_limited": "Zu viele Nachrichten in kurzer Zeit.",
    "too_many_errors": "Zu viele fehlerhafte Nachrichten; die Verbindung wird getrennt.",
    "origin_refused": "Diese Seite darf sich nicht mit dem Server verbinden.",
    "internal_error": "Auf dem Server ist etwas schiefgegangen. Bitte versuche es noch einmal.",
    "auth_required": "Dafür musst du angemeldet sein.",
    "replaced_connection": "Du hast dich in einem anderen Fenster angemeldet.",
    # -- people ------------------------------------------------------------------
    "name_empty": "Bitte gib einen Namen ein.",
    "name_too_long": "Der Name darf höchstens {limit} Zeichen lang sein.",
    "name_bad_chars": "Der Name enthält Zeichen, die nicht erlaubt sind.",
    "name_taken": "Den Namen „{name}“ hat schon jemand anderes.",
    "password_too_short": "Das Passwort muss mindestens {limit} Zeichen lang sein.",
    "password_too_long": "Das Passwort darf höchstens {limit} Zeichen lang sein.",
    "login_failed": "Name oder Passwort stimmen nicht.",
    "already_account": "Du hast schon ein Konto.",
    "profile_not_found": "Dieses Profil gibt es nicht.",
    "guest": "Gast",
    "account": "Konto",
    # -- lobbies -----------------------------------------------------------------
    "lobby_not_found": "Es gibt keine Lobby mit dem Code {code}.",
    "lobby_bad_code": "Das ist kein gültiger Lobby-Code.",
    "lobby_not_open": "Diese Lobby nimmt keine Spieler mehr auf.",
    "not_in_lobby": "Du bist in keiner Lobby.",
    "already_in_lobby": "Du bist schon in einer Lobby. Verlasse sie zuerst.",
    "not_host": "Das darf nur der Gastgeber.",
    "bad_seat": "Diesen Platz gibt es nicht.",
    "seat_taken": "Dieser Platz ist schon besetzt.",
    "seat_not_bot": "Auf diesem Platz sitzt kein Bot.",
    "already_seated": "Du sitzt schon auf einem Platz.",
    "seats_occupied": "Es sitzen zu viele Spieler für {seats} Plätze.",
    "seats_not_full": "Es müssen alle Plätze besetzt sein, bevor das Spiel beginnt.",
    "bad_level": "Diese Bot-Stufe gibt es nicht.",
    "no_humans": "Mindestens ein Mensch muss mitspielen.",
    "lobby_closed": "Die Lobby wurde geschlossen.",
    "host_passed": "{name} ist jetzt Gastgeber.",
    "in_match": "Du spielst gerade eine Partie. Beende sie zuerst.",
    # -- rules (RULES.md §3) -----------------------------------------------------
    "invalid_rules": "Diese Regeln passen nicht zusammen.",
    "bad_rules": "Diese Regeln kann der Server nicht lesen.",
    "bad_seats": "Eine Partie hat 2, 3 oder 4 Plätze.",
    "bad_mode": "Diesen Modus gibt es nicht.",
    "bad_target": "Zielpunkte: Automatisch, 30, 50, 100 oder 150.",
    "bad_turn_seconds": "Zeit pro Zug: 12, 20 oder 30 Sekunden.",
    "pairs_need_four": "Paare gibt es nur mit genau 4 Plätzen.",
    # -- matches -----------------------------------------------------------------
    "match_not_found": "Diese Partie gibt es nicht.",
    "match_over": "Die Partie ist vorbei.",
    "not_seated": "Du sitzt in dieser Partie nicht am Tisch.",
    "not_watching": "Du schaust dieser Partie nicht zu.",
    "stale_version": "Der Tisch hat sich inzwischen geändert. Bitte sieh noch einmal hin.",
    "invalid_move": "Diesen Zug versteht der Server nicht.",
    "bad_move_text": "„{text}“ ist kein Zug.",
    "bad_end": "Ein Stein kommt links (L) oder rechts (R) an.",
    "invalid_tile": "Diesen Stein gibt es nicht.",
    "illegal_move": "Dieser Zug ist jetzt nicht erlaubt.",
    "not_your_turn": "Du bist nicht am Zug.",
    "round_over": "Die Runde ist vorbei.",
    "not_in_hand": "Den Stein {tile} hast du nicht.",
    "does_not_fit": "Dieser Stein passt nicht an dieses Ende.",
    "must_play": "Du hast einen passenden Stein und musst ihn legen.",
    "must_draw": "Nichts passt und das Lager ist nicht leer: du musst ziehen.",
    "no_lager": "Es gibt kein Lager zum Ziehen.",
    "lager_empty": "Das Lager ist leer; du musst passen.",
    "left_match": "Du hast die Partie verlassen. Ein Bot spielt für dich weiter.",
    # -- labels ------------------------------------------------------------------
    "mode": "Modus",
    "mode_klassisch": "Klassisch",
    "mode_blitz": "Blitz",
    "mode_zugemauert": "Zugemauert",
    "mode_fuenferfieber": "Fünferfieber",
    "target": "Zielpunkte",
    "target_auto": "Automatisch",
    "turn_seconds": "Zeit pro Zug",
    "lager": "Lager zum Ziehen",
    "fives": "Fünferpunkte",
    "pairs": "Paare",
    "on": "An",
    "off": "Aus",
    "level_anfaenger": "Anfänger",
    "level_fortgeschritten": "Fortgeschritten",
    "level_profi": "Profi",
    "level_meister": "Meister",
    "bot_name": "Bot {n} ({level})",
    "play_as_guest": "Als Gast spielen",
    "watch": "Zuschauen",
    "back": "Ich bin wieder da",
}

_EN: dict[str, str] = {
    "bad_json": "The message is not valid JSON.",
    "bad_message": "The message is incomplete or malformed: {detail}",
    "unknown_type": "Unknown message “{type}”.",
    "hello_first": "Send “hello” with your token first.",
    "hello_twice": "You are already signed in.",
    "bad_protocol_version": "The server does not know protocol version {version}.",
    "bad_token": "Your token is unknown or expired. Please sign in again.",
    "frame_too_big": "The message is too large (at most {limit} bytes).",
    "rate_limited": "Too many messages in a short time.",
    "too_many_errors": "Too many malformed messages; closing the connection.",
    "origin_refused": "This page may not connect to the server.",
    "internal_error": "Something went wrong on the server. Please try again.",
    "auth_required": "You need to be signed in for that.",
    "replaced_connection": "You signed in from another window.",
    "name_empty": "Please enter a name.",
    "name_too_long": "The name may have at most {limit} characters.",
    "name_bad_chars": "The name contains characters that are not allowed.",
    "name_taken": "Somebody else already has the name “{name}”.",
    "password_too_short": "The password needs at least {limit} characters.",
    "password_too_long": "The password may have at most {limit} characters.",
    "login_failed": "Name or password is wrong.",
    "already_account": "You already have an account.",
    "profile_not_found": "There is no such profile.",
    "guest": "Guest",
    "account": "Account",
    "lobby_not_found": "There is no lobby with the code {code}.",
    "lobby_bad_code": "That is not a valid lobby code.",
    "lobby_not_open": "This lobby takes no more players.",
    "not_in_lobby": "You are not in a lobby.",
    "already_in_lobby": "You are already in a lobby. Leave it first.",
    "not_host": "Only the host may do that.",
    "bad_seat": "There is no such seat.",
    "seat_taken": "This seat is already taken.",
    "seat_not_bot": "No bot sits on this seat.",
    "already_seated": "You already have a seat.",
    "seats_occupied": "Too many players are seated for {seats} seats.",
    "seats_not_full": "Every seat must be taken before the match starts.",
    "bad_level": "There is no such bot level.",
    "no_humans": "At least one human must play.",
    "lobby_closed": "The lobby was closed.",
    "host_passed": "{name} is the host now.",
    "in_match": "You are playing a match. Finish it first.",
    "invalid_rules": "These rules do not fit together.",
    "bad_rules": "The server cannot read these rules.",
    "bad_seats": "A match has 2, 3 or 4 seats.",
    "bad_mode": "There is no such mode.",
    "bad_target": "Target points: automatic, 30, 50, 100 or 150.",
    "bad_turn_seconds": "Time per turn: 12, 20 or 30 seconds.",
    "pairs_need_four": "Pairs only with exactly 4 seats.",
    "match_not_found": "There is no such match.",
    "match_over": "The match is over.",
    "not_seated": "You have no seat in this match.",
    "not_watching": "You are not watching this match.",
    "stale_version": "The table has changed in the meantime. Please look again.",
    "invalid_move": "The server does not understand this move.",
    "bad_move_text": "“{text}” is not a move.",
    "bad_end": "A tile goes to the left (L) or right (R) end.",
    "invalid_tile": "There is no such tile.",
    "illegal_move": "This move is not allowed now.",
    "not_your_turn": "It is not your turn.",
    "round_over": "The round is over.",
    "not_in_hand": "You do not hold {tile}.",
    "does_not_fit": "This tile does not fit that end.",
    "must_play": "You hold a fitting tile and must play it.",
    "must_draw": "Nothing fits and the Lager is not empty: you must draw.",
    "no_lager": "There is no Lager to draw from.",
    "lager_empty": "The Lager is empty; you must pass.",
    "left_match": "You left the match. A bot plays on for you.",
    "mode": "Mode",
    "mode_klassisch": "Classic",
    "mode_blitz": "Blitz",
    "mode_zugemauert": "Walled in",
    "mode_fuenferfieber": "Fives fever",
    "target": "Target points",
    "target_auto": "Automatic",
    "turn_seconds": "Time per turn",
    "lager": "Boneyard",
    "fives": "Fives",
    "pairs": "Pairs",
    "on": "On",
    "off": "Off",
    "level_anfaenger": "Beginner",
    "level_fortgeschritten": "Advanced",
    "level_profi": "Pro",
    "level_meister": "Master",
    "bot_name": "Bot {n} ({level})",
    "play_as_guest": "Play as guest",
    "watch": "Watch",
    "back": "I am back",
}

CATALOGUES: Final[dict[str, dict[str, str]]] = {"de": _DE, "en": _EN}


def t(key: str, **params: Any) -> str:
    """The German text for ``key``, formatted with ``params``."""
    return tr(DEFAULT_LANG, key, **params)


def tr(lang: str, key: str, **params: Any) -> str:
    """The text for ``key`` in ``lang``, formatted with ``params``.

    Unknown keys fall back to English, then to the key; a missing parameter
    leaves the placeholder visible rather than failing.
    """
    text = CATALOGUES.get(lang, _DE).get(key) or _EN.get(key) or key
    if not params:
        return text
    try:
        return text.format(**params)
    except (KeyError, IndexError, ValueError):
        return text
