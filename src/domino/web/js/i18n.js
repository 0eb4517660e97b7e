// The text catalogue. The server's catalogue (/api/i18n/{lang}, src/domino/i18n.py) is the one
// source of truth; FALLBACK only keeps the page readable (in German) for keys the served
// catalogue does not have yet, and doubles as the list of keys this client uses.

const FALLBACK = {
  "ui.title": "Domino",
  "ui.tagline": "Der Klassiker mit 28 Steinen: Gleiche Augen anlegen, aus dem Lager ziehen und als Erster alle Steine los sein.",
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
  "table.thinking": "überlegt …",
  "table.spectator": "Zuschauer",
  "table.round": "Runde {n}",
  "table.target": "Ziel: {n}",
  "table.points": "{n} Punkte",
  "table.points_one": "{n} Punkt",
  "table.tiles": "{n} Steine",
  "table.tiles_one": "{n} Stein",
  "table.represented": "vertreten durch Bot",
  "table.disconnected": "Verbindung getrennt",
  "table.left_match": "hat das Spiel verlassen",
  "table.im_back": "Ich bin wieder da",
  "table.leave": "Spiel verlassen",
  "table.leave_confirm": "Wirklich verlassen? Ein Bot spielt für dich weiter, und du bekommst für dieses Spiel keine XP.",
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
  "table.cannot_draw": "Ziehen geht gerade nicht: Du hast einen passenden Stein, oder das Lager ist leer.",
  "table.cannot_pass": "Passen geht nur, wenn nichts passt und du nicht ziehen kannst.",
  "table.team": "Team {name}",
  "log.open": "{name} eröffnet mit {tile}.",
  "log.play_L": "{name} legt {tile} links an.",
  "log.play_R": "{name} legt {tile} rechts an.",
  "log.draw": "{name} zieht einen Stein.",
  "log.pass": "{name} passt.",
  "log.fives": "{name} bekommt {n} Fünferpunkte.",
  "log.open_you": "Du eröffnest mit {tile}.",
  "log.play_L_you": "Du legst {tile} links an.",
  "log.play_R_you": "Du legst {tile} rechts an.",
  "log.draw_you": "Du ziehst einen Stein.",
  "log.draw_n_you": "Du ziehst {n} Steine.",
  "log.pass_you": "Du passt.",
  "log.fives_you": "Du bekommst {n} Fünferpunkte.",
  "round.title": "Runde {n} ist vorbei",
  "round.domino": "Domino! {name} ist alle Steine los.",
  "round.blocked": "Blockiert: Keiner kann mehr legen.",
  "round.scores": "{name} bekommt {n} Punkte.",
  "round.domino_you": "Domino! Du bist alle Steine los.",
  "round.scores_you": "Du bekommst {n} Punkte.",
  "round.nobody": "Gleichstand: Niemand bekommt Punkte.",
  "round.pips": "{n} Augen",
  "round.pips_one": "{n} Auge",
  "round.next": "Gleich beginnt die nächste Runde …",
  "match.title": "Spielende",
  "match.place": "{place}. Platz",
  "match.xp": "+{n} XP",
  "match.level": "Stufe {level}",
  "match.again": "Nochmal",
  "match.record": "Spielbericht ansehen",
  "match.home": "Zur Startseite",
  "help.title": "Hilfe: So spielst du",
  "help.rules": "Lege Steine mit gleichen Augen an eines der beiden offenen Enden. Passt nichts, ziehst du aus dem Lager, bis ein Stein passt. Ist das Lager leer, passt du. Wer als Erster alle Steine los ist, ruft Domino und bekommt die Augen der anderen. Kann keiner mehr legen, gewinnt, wer die wenigsten Augen hat.",
  "help.mouse": "Maus: Klicke einen Stein. Passt er an beide Enden, leuchten beide auf, dann klickst du eines an. Du kannst einen Stein auch auf ein Ende ziehen.",
  "help.keys": "Tastatur: 1 bis 9 wählt einen Stein (von links), L und R legen links oder rechts an, D zieht, P passt, Esc hebt die Auswahl auf, die Pfeiltasten gehen über die Steine und Enden.",
  "help.touch": "Handy und Tablet: Tippe auf einen Stein. Passt er an beide Enden, tippst du danach auf das leuchtende Ende. Zum Ziehen tippst du auf das Lager oder auf Ziehen. Du kannst einen Stein auch mit dem Finger auf ein Ende ziehen.",
  "help.pad": "Controller: Das Steuerkreuz wählt Stein oder Ende, A tippt, LB legt links an, RB rechts, X zieht, Y passt, B hebt die Auswahl auf.",
  "error.generic": "Das hat nicht geklappt.",
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
  "home.back_to_lobby": "Zurück zur Lobby {code}",
  "profile.account_made": "Dein Konto ist angelegt.",
  "help.controls": "Steuerung",
};

let catalogue = {};
let current = "de";

/** Load the served catalogue for `lang`; missing keys fall back to the German defaults. */
export async function loadCatalogue(lang) {
  try {
    const res = await fetch(`/api/i18n/${lang}`, { headers: { Accept: "application/json" } });
    if (res.ok) {
      const body = await res.json();
      // Accept both {key: text} and {messages: {key: text}}.
      catalogue = body && typeof body.messages === "object" ? body.messages : body || {};
      current = lang;
    }
  } catch {
    catalogue = {};
  }
  document.documentElement.lang = current;
  return current;
}

export function lang() {
  return current;
}

/** The text for `key` with `{name}` placeholders filled from `params`. */
export function t(key, params = {}) {
  const text = catalogue[key] ?? FALLBACK[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

/** A count in words: `key_one` for exactly one ("1 Punkt"), else `key` ("2 Punkte"). */
export function tn(key, n, params = {}) {
  return t(n === 1 ? `${key}_one` : key, { ...params, n });
}

export const KEYS = Object.keys(FALLBACK);
export { FALLBACK };
