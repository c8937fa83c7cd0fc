/** The part of Echogarden's eSpeak NG build (Emscripten, WebIDL bindings) this package uses. */
declare module "@echogarden/espeak-ng-emscripten" {
  export interface ESpeakNGWorker {
    set_voice(name: string): void;
    set_rate(wordsPerMinute: number): void;
    set_pitch(pitch: number): void;
    get_samplerate(): number;
    /** Calls back with each chunk of samples as it is produced; return true to stop. */
    synthesize(text: string, onChunk: (samples: Int16Array, events: unknown[]) => boolean | undefined): void;
  }
  interface ESpeakNGModule {
    eSpeakNGWorker: new () => ESpeakNGWorker;
  }
  const factory: () => Promise<ESpeakNGModule>;
  export default factory;
}
