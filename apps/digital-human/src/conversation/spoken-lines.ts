/**
 * The lines the digital human says of its own, whatever its persona (a turn it did not hear, a reply that
 * failed, its acknowledgements without an LLM, its goodbyes), in the persona's language: English,
 * Spanish, French, German, Portuguese and Italian, the languages its offline voices speak. A digital
 * human in another language (heard and spoken by providers) says them in English, and a persona's own
 * greeting is the customer's to write in its language.
 */
export interface SpokenLines {
  /** A turn the VAD heard but no words were made out of, with an LLM to answer (conversation-agent.ts). */
  notHeard: string;
  /** A reply of the LLM's that failed (guarded-reply.ts). */
  apology: string;
  /** What it says to a turn without an LLM (no two the same in a row). */
  acknowledgements: readonly [string, ...string[]];
  farewellOnLeaving(name: string): string;
  farewellAtTimeLimit(name: string): string;
}

export const ENGLISH: SpokenLines = {
  notHeard: "Sorry, I didn't catch that. Could you say it again?",
  apology: "Sorry, I lost my train of thought, could you say that again?",
  acknowledgements: ["I see.", "Mm-hmm, go on.", "Right.", "That's interesting.", "Got it.", "I hear you."],
  farewellOnLeaving: (name) => `Goodbye, ${name}. Come back soon.`,
  farewellAtTimeLimit: (name) => `We are almost out of time, ${name}. Thank you for talking with me. Goodbye!`,
};

const BY_LANGUAGE: Readonly<Record<string, SpokenLines>> = {
  en: ENGLISH,
  es: {
    notHeard: "Perdona, no te he entendido. ¿Puedes repetirlo?",
    apology: "Perdona, he perdido el hilo. ¿Puedes repetirlo?",
    acknowledgements: ["Ya veo.", "Ajá, sigue.", "Claro.", "Qué interesante.", "Entendido.", "Te escucho."],
    farewellOnLeaving: (name) => `Adiós, ${name}. Vuelve pronto.`,
    farewellAtTimeLimit: (name) => `Se nos acaba el tiempo, ${name}. Gracias por hablar conmigo. ¡Adiós!`,
  },
  fr: {
    notHeard: "Pardon, je n'ai pas compris. Pouvez-vous répéter ?",
    apology: "Pardon, j'ai perdu le fil. Pouvez-vous répéter ?",
    acknowledgements: ["Je vois.", "Oui, continuez.", "D'accord.", "C'est intéressant.", "Compris.", "Je vous écoute."],
    farewellOnLeaving: (name) => `Au revoir, ${name}. À bientôt.`,
    farewellAtTimeLimit: (name) => `Nous n'avons presque plus de temps, ${name}. Merci de m'avoir parlé. Au revoir !`,
  },
  de: {
    notHeard: "Entschuldigung, das habe ich nicht verstanden. Können Sie es wiederholen?",
    apology: "Entschuldigung, ich habe den Faden verloren. Können Sie das wiederholen?",
    acknowledgements: ["Verstehe.", "Mhm, weiter.", "Genau.", "Interessant.", "Alles klar.", "Ich höre zu."],
    farewellOnLeaving: (name) => `Auf Wiedersehen, ${name}. Bis bald.`,
    farewellAtTimeLimit: (name) => `Unsere Zeit ist fast um, ${name}. Danke für das Gespräch. Auf Wiedersehen!`,
  },
  pt: {
    notHeard: "Desculpe, não percebi. Pode repetir?",
    apology: "Desculpe, perdi o fio à meada. Pode repetir?",
    acknowledgements: ["Estou a ver.", "Sim, continue.", "Certo.", "Que interessante.", "Entendido.", "Estou a ouvir."],
    farewellOnLeaving: (name) => `Adeus, ${name}. Volte em breve.`,
    farewellAtTimeLimit: (name) => `O nosso tempo está quase a acabar, ${name}. Obrigado pela conversa. Adeus!`,
  },
  it: {
    notHeard: "Scusa, non ho capito. Puoi ripetere?",
    apology: "Scusa, ho perso il filo. Puoi ripetere?",
    acknowledgements: ["Capisco.", "Sì, continua.", "Certo.", "Interessante.", "Ho capito.", "Ti ascolto."],
    farewellOnLeaving: (name) => `Arrivederci, ${name}. Torna presto.`,
    farewellAtTimeLimit: (name) => `Il tempo sta per finire, ${name}. Grazie per aver parlato con me. Arrivederci!`,
  },
};

/** The lines of `language` (a BCP 47 tag, by its primary subtag: `pt-BR` says `pt`'s), English for one it has none in. */
export function spokenLines(language: string): SpokenLines {
  return BY_LANGUAGE[language.toLowerCase().split("-")[0] ?? ""] ?? ENGLISH;
}
