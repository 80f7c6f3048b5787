/** A setting that is wrong: its message starts with the variable's name; `relay` prints it as one line and exits 78. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
