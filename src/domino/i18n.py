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
    "too_many_signins": "Zu viele Anmeldungen von dieser Adresse. Bitte warte einen Moment.",
    "origin_refused": "Diese Seite darf sich nicht mit dem Server verbinden.",
    "internal_error": "Auf dem Server ist etwas schiefgegangen. Bitte versuche es noch einmal.",
    "serve_running": "Domino läuft auf {url}  (Strg+C beendet den Server)",
    "db_unversioned": (
        "Die Datenbank ist nicht migriert (keine Versionstabelle; nötig ist Revision {head}). "
        "Bitte zuerst ausführen: {command}"
    ),
    "db_not_migrated": (
        "Die Datenbank ist nicht auf dem neuesten Stand (Revision {current}, nötig ist {head}). "
        "Bitte zuerst ausführen: {command}"
    ),
    "db_too_new": (
        "Die Datenbank hat Revision {current}, die diese Version von Domino nicht kennt "
        "(sie kennt bis {head}). Bitte Domino aktualisieren."
    ),
    "db_partial": (
        "Die Datenbank hat keine Versionstabelle und nur einen Teil der Tabellen "
        "(es fehlen: {missing}); sie wird nicht angefasst."
    ),
    "db_upgraded": "Datenbank auf Revision {revision} (neueste: {head}).",
    "db_current": "Datenbank auf Revision {revision} (neueste: {head}).",
    "db_current_none": "Die Datenbank hat keine Versionstabelle (neueste Revision: {head}).",
    "db_missing": (
        "Die Datenbank „{name}“ gibt es auf {server} nicht. Lege sie an (createdb {name}) "
        "oder prüfe --db."
    ),
    "db_unreachable": "Die Datenbank {url} ist nicht erreichbar ({reason}). Prüfe --db.",
    "db_refused": "Die Datenbank {url} lehnt die Verbindung ab ({reason}). Prüfe --db.",
    "redis_unreachable": "Redis unter {url} ist nicht erreichbar ({reason}). Prüfe --redis.",
    "reason_refused": "Verbindung abgelehnt: dort lauscht niemand",
    "reason_unknown_host": "Rechnername unbekannt",
    "reason_timeout": "keine Antwort",
    "auth_required": "Dafür musst du angemeldet sein.",
    "replaced_connection": "Du hast dich in einem anderen Fenster angemeldet.",
    "lang_not_found": "Für diese Sprache gibt es keine Texte.",
    # what is wrong with a refused message (the {detail} of bad_message)
    "detail.not_object": "Erwartet wird ein JSON-Objekt.",
    "detail.json": "Das ist kein gültiges JSON.",
    "detail.missing": "„{field}“ fehlt.",
    "detail.extra": "„{field}“ gibt es in dieser Nachricht nicht.",
    "detail.int": "„{field}“ muss eine ganze Zahl sein.",
    "detail.bool": "„{field}“ muss true oder false sein.",
    "detail.str": "„{field}“ muss ein Text sein.",
    "detail.too_long": "„{field}“ ist zu lang (höchstens {max} Zeichen).",
    "detail.too_short": "„{field}“ ist zu kurz (mindestens {min} Zeichen).",
    "detail.object": "„{field}“ muss ein JSON-Objekt sein.",
    "detail.invalid": "„{field}“ hat keinen gültigen Wert.",
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
    "lobby_busy": "Die Lobby wird gerade von vielen geändert. Versuch es gleich noch einmal.",
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
    "match_moved": "Diese Partie läuft jetzt auf einem anderen Server. Dein Zug wurde nicht "
    "angenommen; bitte verbinde dich neu.",
    "not_stored": "Dein Zug konnte gerade nicht gespeichert werden und gilt nicht. Bitte "
    "versuch es gleich noch einmal.",
    "cluster_unavailable": "Der Server kann gerade keine neue Partie beginnen. Bitte versuch es "
    "gleich noch einmal.",
    "match_unavailable": "Die Partie ist gerade nicht erreichbar. Bitte versuch es gleich noch "
    "einmal.",
    "node_draining": "Dieser Server wird gerade neu gestartet und nimmt keine neuen Lobbys "
    "oder Partien an. Bitte verbinde dich neu und versuche es noch einmal.",
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
    # -- the browser client (keys from the client agent) ---------------------------------
    "ui.title": "Domino",
    "ui.tagline": (
        "Der Klassiker mit 28 Steinen: Gleiche Augen anlegen, aus dem Lager ziehen und "
        "als Erster alle Steine los sein."
    ),
    "ui.help": "Hilfe",
    "ui.lang_switch": "English",
    "ui.close": "Schließen",
    "ui.back": "Zurück",
    "ui.loading": "Lädt …",
    "ui.offline": "Keine Verbindung zum Server.",
    "ui.reconnecting": "Verbindung wird wiederhergestellt …",
    "ui.connected": "Verbunden",
    "start.guest": "Als Gast spielen",
    "start.name": "Dein Name",
    "start.password": "Passwort",
    "start.login": "Anmelden",
    "start.register": "Registrieren",
    "start.have_account": "Schon ein Konto?",
    "start.new_account": "Neu hier?",
    "start.logout": "Abmelden",
    "start.name_missing": "Bitte gib einen Namen ein.",
    "profile.title": "Profil",
    "profile.level": "Stufe {level}",
    "profile.xp": "{xp} XP",
    "profile.next_level": "Noch {xp} XP bis Stufe {level}",
    "profile.played": "Spiele",
    "profile.won": "Siege",
    "profile.recent": "Letzte Spiele",
    "profile.none": "Noch keine Spiele.",
    "profile.guest": "Gast",
    "profile.make_account": "Konto anlegen",
    "profile.place": "{place}. Platz",
    "home.create": "Lobby eröffnen",
    "home.join": "Beitreten",
    "home.code": "Code der Lobby",
    "home.open_lobbies": "Offene Lobbys",
    "home.running": "Laufende Spiele",
    "home.none_open": "Gerade ist keine Lobby offen.",
    "home.none_running": "Gerade läuft kein Spiel.",
    "home.players": "{n}/{seats} Spieler",
    "lobby.title": "Lobby {code}",
    "lobby.copy_link": "Link kopieren",
    "lobby.copied": "Link kopiert",
    "lobby.seats": "Plätze",
    "lobby.seat_count": "Anzahl Plätze",
    "lobby.free": "Frei",
    "lobby.sit": "Hinsetzen",
    "lobby.stand": "Aufstehen",
    "lobby.add_bot": "Bot hinzufügen",
    "lobby.remove_bot": "Bot entfernen",
    "lobby.bot_level": "Stufe des Bots",
    "lobby.host": "Host",
    "lobby.you": "du",
    "lobby.bot": "Bot · {level}",
    "lobby.rules": "Regeln",
    "lobby.start": "Starten",
    "lobby.watch": "Zuschauen",
    "lobby.leave": "Verlassen",
    "lobby.wait_host": "Der Host stellt die Regeln ein und startet das Spiel.",
    "lobby.need_full": "Zum Starten müssen alle Plätze besetzt sein.",
    "lobby.spectators": "Zuschauer: {n}",
    "rule.mode": "Modus",
    "rule.target": "Zielpunkte",
    "rule.turn_seconds": "Zeit pro Zug",
    "rule.lager": "Lager zum Ziehen",
    "rule.fives": "Fünferpunkte",
    "rule.pairs": "Paare",
    "mode.klassisch": "Klassisch",
    "mode.blitz": "Blitz",
    "mode.zugemauert": "Zugemauert",
    "mode.fuenferfieber": "Fünferfieber",
    "val.auto": "Automatisch",
    "val.on": "An",
    "val.off": "Aus",
    "val.seconds": "{n} s",
    "level.anfaenger": "Anfänger",
    "level.fortgeschritten": "Fortgeschritten",
    "level.profi": "Profi",
    "level.meister": "Meister",
    "table.you": "Du",
    "table.lager": "Lager",
    "table.lager_count": "Lager: {n} Steine",
    "table.draw": "Ziehen",
    "table.pass": "Passen",
    "table.your_turn": "Du bist dran",
    "table.turn_of": "{name} ist dran",
    "table.spectator": "Zuschauer",
    "table.round": "Runde {n}",
    "table.target": "Ziel: {n}",
    "table.points": "{n} Punkte",
    "table.tiles": "{n} Steine",
    "table.represented": "vertreten durch Bot",
    "table.disconnected": "Verbindung getrennt",
    "table.left_match": "hat das Spiel verlassen",
    "table.im_back": "Ich bin wieder da",
    "table.leave": "Spiel verlassen",
    "table.log": "Verlauf",
    "table.hand": "Deine Steine",
    "table.line": "Die Reihe",
    "table.end_L": "Linkes Ende, {n}",
    "table.end_R": "Rechtes Ende, {n}",
    "table.play_at": "Hier anlegen: {end}",
    "table.tile": "Stein {tile}",
    "table.fits_L": "passt links",
    "table.fits_R": "passt rechts",
    "table.fits_both": "passt links und rechts",
    "table.fits_none": "passt nicht",
    "table.choose_end": "{tile} passt an beide Enden: wähle links oder rechts.",
    "table.not_fitting": "Dieser Stein passt an kein offenes Ende.",
    "table.not_your_turn": "Du bist gerade nicht am Zug.",
    "table.cannot_draw": (
        "Ziehen geht gerade nicht: Du hast einen passenden Stein, oder das Lager ist leer."
    ),
    "table.cannot_pass": "Passen geht nur, wenn nichts passt und du nicht ziehen kannst.",
    "table.team": "Team {name}",
    "log.open": "{name} eröffnet mit {tile}.",
    "log.play_L": "{name} legt {tile} links an.",
    "log.play_R": "{name} legt {tile} rechts an.",
    "log.draw": "{name} zieht einen Stein.",
    "log.pass": "{name} passt.",
    "log.fives": "{name} bekommt {n} Fünferpunkte.",
    "log.you_drew": "Du ziehst {tile}.",
    "round.title": "Runde {n} ist vorbei",
    "round.domino": "Domino! {name} ist alle Steine los.",
    "round.blocked": "Blockiert: Keiner kann mehr legen.",
    "round.scores": "{name} bekommt {n} Punkte.",
    "round.nobody": "Gleichstand: Niemand bekommt Punkte.",
    "round.pips": "{n} Augen",
    "round.next": "Gleich beginnt die nächste Runde …",
    "match.title": "Spielende",
    "match.place": "{place}. Platz",
    "match.xp": "+{n} XP",
    "match.level": "Stufe {level}",
    "match.again": "Nochmal",
    "match.record": "Spielbericht ansehen",
    "match.home": "Zur Startseite",
    "help.title": "Hilfe: So spielst du",
    "help.rules": (
        "Lege Steine mit gleichen Augen an eines der beiden offenen Enden. Passt nichts, "
        "ziehst du aus dem Lager, bis ein Stein passt. Ist das Lager leer, passt du. Wer "
        "als Erster alle Steine los ist, ruft Domino und bekommt die Augen der anderen. "
        "Kann keiner mehr legen, gewinnt, wer die wenigsten Augen hat."
    ),
    "help.mouse": (
        "Maus: Klicke einen Stein. Passt er an beide Enden, leuchten beide auf, dann "
        "klickst du eines an. Du kannst einen Stein auch auf ein Ende ziehen."
    ),
    "help.keys": (
        "Tastatur: 1 bis 9 wählt einen Stein (von links), L und R legen links oder "
        "rechts an, D zieht, P passt, Esc hebt die Auswahl auf, die Pfeiltasten gehen "
        "über die Steine und Enden."
    ),
    "help.touch": (
        "Handy und Tablet: Tippe auf einen Stein. Passt er an beide Enden, tippst du "
        "danach auf das leuchtende Ende. Zum Ziehen tippst du auf das Lager oder auf "
        "Ziehen. Du kannst einen Stein auch mit dem Finger auf ein Ende ziehen."
    ),
    "help.pad": (
        "Controller: Das Steuerkreuz wählt Stein oder Ende, A tippt, LB legt links an, "
        "RB rechts, X zieht, Y passt, B hebt die Auswahl auf."
    ),
    "error.generic": "Das hat nicht geklappt.",
    "log.open_you": "Du eröffnest mit {tile}.",
    "log.play_L_you": "Du legst {tile} links an.",
    "log.play_R_you": "Du legst {tile} rechts an.",
    "log.draw_you": "Du ziehst einen Stein.",
    "log.draw_n_you": "Du ziehst {n} Steine.",
    "log.pass_you": "Du passt.",
    "log.fives_you": "Du bekommst {n} Fünferpunkte.",
    "round.domino_you": "Domino! Du bist alle Steine los.",
    "round.scores_you": "Du bekommst {n} Punkte.",
    "table.not_fitting_end": "Dieser Stein passt nicht an dieses Ende.",
    "table.pick_tile": "Wähle zuerst einen Stein aus deiner Hand.",
    "log.draw_n": "{name} zieht {n} Steine.",
    "log.timeout": "Die Zeit von {name} ist abgelaufen; der Server zieht.",
    "log.standin": "Ein Bot vertritt jetzt {name}.",
    "log.back": "{name} ist wieder da.",
    "log.leave": "{name} hat das Spiel verlassen; ein Bot spielt weiter.",
    "log.disconnected": "{name} hat die Verbindung verloren.",
    "log.connected": "{name} ist wieder verbunden.",
    "start.fact_players": "2–4 Spieler",
    "start.fact_bots": "mit Bots",
    "start.fact_free": "kostenlos",
    "home.hello": "Hallo, {name}!",
    "profile.account_made": "Dein Konto ist angelegt.",
    "help.controls": "Steuerung",
    "home.back_to_lobby": "Zurück zur Lobby {code}",
    "table.thinking": "überlegt …",
    "table.points_one": "{n} Punkt",
    "table.tiles_one": "{n} Stein",
    "table.leave_confirm": (
        "Wirklich verlassen? Ein Bot spielt für dich weiter, und du bekommst für dieses Spiel"
        " keine XP."
    ),
    "round.pips_one": "{n} Auge",
    # -- issue 13 analysis --
    "analysis_match_running": (
        "Diese Partie läuft noch. Analyse und Wiederholung gibt es erst, wenn sie zu Ende ist."
    ),
    "analysis_no_record": "Von dieser Partie gibt es keinen Spielbericht, den Meister prüfen kann.",
    "analysis_failed": "Die Analyse dieser Partie ist fehlgeschlagen.",
    "analysis_off": "Auf diesem Server sind Analysen abgeschaltet.",
    "analysis_busy": (
        "Meister analysiert gerade viele Partien. Versuch es in einer Minute noch einmal."
    ),
    "replay_match_running": (
        "Diese Partie läuft noch. Die Wiederholung gibt es erst, wenn sie zu Ende ist."
    ),
    "replay_no_record": "Von dieser Partie gibt es keinen Spielbericht.",
    "bad_cursor": (
        "Diese Seitenangabe verstehe ich nicht. Fang noch einmal auf der ersten Seite an."
    ),
    "bad_limit": "Pro Seite gehen 1 bis 50 Partien.",
    "analysis.grade.ungenau": "Ungenau",
    "analysis.grade.fehler": "Fehler",
    "analysis.grade.patzer": "Patzer",
    "analysis.running": "Meister analysiert die Partie … {done} von {total} Zügen.",
    "analysis.best": "Besser war {move} ({value} Punkte erwartet).",
    "analysis.hindsight": "Im Nachhinein (mit Blick in alle Hände)",
    "analysis.summary_you": (
        "Du hast {share} % der besten Züge gefunden und im Schnitt {loss} Punkte verloren."
    ),
    "analysis.summary": (
        "{name} hat {share} % der besten Züge gefunden und im Schnitt {loss} Punkte verloren."
    ),
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
    "too_many_signins": "Too many sign-ins from this address. Please wait a moment.",
    "origin_refused": "This page may not connect to the server.",
    "internal_error": "Something went wrong on the server. Please try again.",
    "serve_running": "Domino is running at {url}  (Ctrl+C stops the server)",
    "db_unversioned": (
        "The database is not migrated (no version table; revision {head} is needed). "
        "Run first: {command}"
    ),
    "db_not_migrated": (
        "The database is not up to date (revision {current}, {head} is needed). "
        "Run first: {command}"
    ),
    "db_too_new": (
        "The database has revision {current}, which this version of Domino does not know "
        "(it knows up to {head}). Please update Domino."
    ),
    "db_partial": (
        "The database has no version table and only some of the tables "
        "(missing: {missing}); it is left alone."
    ),
    "db_upgraded": "Database at revision {revision} (newest: {head}).",
    "db_current": "Database at revision {revision} (newest: {head}).",
    "db_current_none": "The database has no version table (newest revision: {head}).",
    "db_missing": (
        "The database {name} does not exist on {server}. Create it (createdb {name}) or check --db."
    ),
    "db_unreachable": "The database {url} cannot be reached ({reason}). Check --db.",
    "db_refused": "The database {url} refuses the connection ({reason}). Check --db.",
    "redis_unreachable": "Redis at {url} cannot be reached ({reason}). Check --redis.",
    "reason_refused": "connection refused: nothing listens there",
    "reason_unknown_host": "unknown host name",
    "reason_timeout": "no answer",
    "auth_required": "You need to be signed in for that.",
    "replaced_connection": "You signed in from another window.",
    "lang_not_found": "There are no texts for this language.",
    "detail.not_object": "A JSON object is expected.",
    "detail.json": "This is not valid JSON.",
    "detail.missing": "“{field}” is missing.",
    "detail.extra": "This message has no “{field}”.",
    "detail.int": "“{field}” must be a whole number.",
    "detail.bool": "“{field}” must be true or false.",
    "detail.str": "“{field}” must be a text.",
    "detail.too_long": "“{field}” is too long (at most {max} characters).",
    "detail.too_short": "“{field}” is too short (at least {min} characters).",
    "detail.object": "“{field}” must be a JSON object.",
    "detail.invalid": "“{field}” has no valid value.",
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
    "lobby_busy": "Many people are changing this lobby right now. Please try again.",
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
    "match_moved": "This match now runs on another server. Your move was not accepted; "
    "please reconnect.",
    "not_stored": "Your move could not be stored just now and does not count. Please try "
    "again in a moment.",
    "cluster_unavailable": "The server cannot start a new match right now. Please try again "
    "in a moment.",
    "match_unavailable": "The match cannot be reached right now. Please try again in a moment.",
    "node_draining": "This server is restarting and takes no new lobbies or matches. "
    "Please reconnect and try again.",
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
    # -- the browser client ------------------------------------------------------------
    "ui.title": "Domino",
    "ui.tagline": (
        "The classic with 28 tiles: match equal pips, draw from the boneyard and be the "
        "first to get rid of all your tiles."
    ),
    "ui.help": "Help",
    "ui.lang_switch": "Deutsch",
    "ui.close": "Close",
    "ui.back": "Back",
    "ui.loading": "Loading …",
    "ui.offline": "No connection to the server.",
    "ui.reconnecting": "Reconnecting …",
    "ui.connected": "Connected",
    "start.guest": "Play as guest",
    "start.name": "Your name",
    "start.password": "Password",
    "start.login": "Log in",
    "start.register": "Sign up",
    "start.have_account": "Already have an account?",
    "start.new_account": "New here?",
    "start.logout": "Log out",
    "start.name_missing": "Please enter a name.",
    "profile.title": "Profile",
    "profile.level": "Level {level}",
    "profile.xp": "{xp} XP",
    "profile.next_level": "{xp} XP to level {level}",
    "profile.played": "Matches",
    "profile.won": "Wins",
    "profile.recent": "Recent matches",
    "profile.none": "No matches yet.",
    "profile.guest": "Guest",
    "profile.make_account": "Create account",
    "profile.place": "Place {place}",
    "home.create": "Open a lobby",
    "home.join": "Join",
    "home.code": "Lobby code",
    "home.open_lobbies": "Open lobbies",
    "home.running": "Running matches",
    "home.none_open": "No lobby is open right now.",
    "home.none_running": "No match is running right now.",
    "home.players": "{n}/{seats} players",
    "lobby.title": "Lobby {code}",
    "lobby.copy_link": "Copy link",
    "lobby.copied": "Link copied",
    "lobby.seats": "Seats",
    "lobby.seat_count": "Number of seats",
    "lobby.free": "Free",
    "lobby.sit": "Sit down",
    "lobby.stand": "Stand up",
    "lobby.add_bot": "Add bot",
    "lobby.remove_bot": "Remove bot",
    "lobby.bot_level": "Bot level",
    "lobby.host": "Host",
    "lobby.you": "you",
    "lobby.bot": "Bot · {level}",
    "lobby.rules": "Rules",
    "lobby.start": "Start",
    "lobby.watch": "Watch",
    "lobby.leave": "Leave",
    "lobby.wait_host": "The host sets the rules and starts the match.",
    "lobby.need_full": "Every seat must be taken to start.",
    "lobby.spectators": "Spectators: {n}",
    "rule.mode": "Mode",
    "rule.target": "Target points",
    "rule.turn_seconds": "Time per turn",
    "rule.lager": "Boneyard",
    "rule.fives": "Fives",
    "rule.pairs": "Pairs",
    "mode.klassisch": "Classic",
    "mode.blitz": "Blitz",
    "mode.zugemauert": "Walled in",
    "mode.fuenferfieber": "Fives fever",
    "val.auto": "Automatic",
    "val.on": "On",
    "val.off": "Off",
    "val.seconds": "{n} s",
    "level.anfaenger": "Beginner",
    "level.fortgeschritten": "Advanced",
    "level.profi": "Pro",
    "level.meister": "Master",
    "table.you": "You",
    "table.lager": "Boneyard",
    "table.lager_count": "Boneyard: {n} tiles",
    "table.draw": "Draw",
    "table.pass": "Pass",
    "table.your_turn": "Your turn",
    "table.turn_of": "{name}'s turn",
    "table.spectator": "Spectator",
    "table.round": "Round {n}",
    "table.target": "Target: {n}",
    "table.points": "{n} points",
    "table.tiles": "{n} tiles",
    "table.represented": "represented by a bot",
    "table.disconnected": "disconnected",
    "table.left_match": "left the match",
    "table.im_back": "I am back",
    "table.leave": "Leave match",
    "table.log": "History",
    "table.hand": "Your tiles",
    "table.line": "The line",
    "table.end_L": "Left end, {n}",
    "table.end_R": "Right end, {n}",
    "table.play_at": "Play here: {end}",
    "table.tile": "Tile {tile}",
    "table.fits_L": "fits left",
    "table.fits_R": "fits right",
    "table.fits_both": "fits left and right",
    "table.fits_none": "does not fit",
    "table.choose_end": "{tile} fits both ends: choose left or right.",
    "table.not_fitting": "This tile fits no open end.",
    "table.not_your_turn": "It is not your turn.",
    "table.cannot_draw": "You cannot draw now: you hold a fitting tile, or the boneyard is empty.",
    "table.cannot_pass": "You may pass only when nothing fits and you cannot draw.",
    "table.team": "Team {name}",
    "log.open": "{name} opens with {tile}.",
    "log.play_L": "{name} plays {tile} on the left.",
    "log.play_R": "{name} plays {tile} on the right.",
    "log.draw": "{name} draws a tile.",
    "log.pass": "{name} passes.",
    "log.fives": "{name} scores {n} fives points.",
    "log.you_drew": "You draw {tile}.",
    "round.title": "Round {n} is over",
    "round.domino": "Domino! {name} has no tiles left.",
    "round.blocked": "Blocked: nobody can play.",
    "round.scores": "{name} scores {n} points.",
    "round.nobody": "A tie: nobody scores.",
    "round.pips": "{n} pips",
    "round.next": "The next round starts in a moment …",
    "match.title": "Match over",
    "match.place": "Place {place}",
    "match.xp": "+{n} XP",
    "match.level": "Level {level}",
    "match.again": "Again",
    "match.record": "View the record",
    "match.home": "Home",
    "help.title": "Help: how to play",
    "help.rules": (
        "Lay tiles with equal pips at one of the two open ends. If nothing fits, draw "
        "from the boneyard until a tile fits. If the boneyard is empty, pass. The first "
        "to get rid of all tiles calls Domino and scores the others' pips. If nobody can "
        "play, whoever holds the fewest pips wins."
    ),
    "help.mouse": (
        "Mouse: click a tile. If it fits both ends, both light up; click one. You can "
        "also drag a tile onto an end."
    ),
    "help.keys": (
        "Keyboard: 1 to 9 picks a tile (from the left), L and R play left or right, D "
        "draws, P passes, Esc clears the choice, the arrow keys move over tiles and ends."
    ),
    "help.touch": (
        "Phone and tablet: tap a tile. If it fits both ends, tap the lit end next. To "
        "draw, tap the boneyard or Draw. You can also drag a tile onto an end with your "
        "finger."
    ),
    "help.pad": (
        "Controller: the D-pad picks a tile or an end, A taps, LB plays left, RB right, "
        "X draws, Y passes, B clears the choice."
    ),
    "error.generic": "That did not work.",
    "log.open_you": "You open with {tile}.",
    "log.play_L_you": "You play {tile} on the left.",
    "log.play_R_you": "You play {tile} on the right.",
    "log.draw_you": "You draw a tile.",
    "log.draw_n_you": "You draw {n} tiles.",
    "log.pass_you": "You pass.",
    "log.fives_you": "You score {n} fives points.",
    "round.domino_you": "Domino! You are out of tiles.",
    "round.scores_you": "You score {n} points.",
    "table.not_fitting_end": "This tile does not fit this end.",
    "table.pick_tile": "Pick a tile from your hand first.",
    "log.draw_n": "{name} draws {n} tiles.",
    "log.timeout": "{name}'s time ran out; the server moves.",
    "log.standin": "A bot now stands in for {name}.",
    "log.back": "{name} is back.",
    "log.leave": "{name} left the match; a bot plays on.",
    "log.disconnected": "{name} lost the connection.",
    "log.connected": "{name} is connected again.",
    "start.fact_players": "2–4 players",
    "start.fact_bots": "with bots",
    "start.fact_free": "free",
    "home.hello": "Hello, {name}!",
    "profile.account_made": "Your account is ready.",
    "help.controls": "Controls",
    "home.back_to_lobby": "Back to lobby {code}",
    "table.thinking": "thinking …",
    "table.points_one": "{n} point",
    "table.tiles_one": "{n} tile",
    "table.leave_confirm": (
        "Really leave? A bot plays on for you, and you get no XP for this match."
    ),
    "round.pips_one": "{n} pip",
    # -- issue 13 analysis --
    "analysis_match_running": (
        "This match is still running. Analysis and replay come once it is over."
    ),
    "analysis_no_record": "There is no game record of this match for Meister to check.",
    "analysis_failed": "The analysis of this match failed.",
    "analysis_off": "Analyses are switched off on this server.",
    "analysis_busy": "Meister is analysing many matches right now. Try again in a minute.",
    "replay_match_running": "This match is still running. The replay comes once it is over.",
    "replay_no_record": "There is no game record of this match.",
    "bad_cursor": "I do not understand this page marker. Start again on the first page.",
    "bad_limit": "A page holds 1 to 50 matches.",
    "analysis.grade.ungenau": "Inaccuracy",
    "analysis.grade.fehler": "Mistake",
    "analysis.grade.patzer": "Blunder",
    "analysis.running": "Meister is analysing the match … {done} of {total} moves.",
    "analysis.best": "Better was {move} ({value} points expected).",
    "analysis.hindsight": "In hindsight (looking into every hand)",
    "analysis.summary_you": (
        "You found {share} % of the best moves and lost {loss} points on average."
    ),
    "analysis.summary": (
        "{name} found {share} % of the best moves and lost {loss} points on average."
    ),
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
