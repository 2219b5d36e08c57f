/** Replaces known secret values (and their base64 forms) in any text that leaves the run. */
export class SecretMasker {
  private readonly values = new Set<string>()

  add(value: string | undefined): void {
    if (!value || value.length < 4) return
    this.values.add(value)
    this.values.add(Buffer.from(value).toString('base64'))
    this.values.add(encodeURIComponent(value))
  }

  mask(text: string): string {
    let masked = text
    for (const value of [...this.values].sort((a, b) => b.length - a.length))
      masked = masked.split(value).join('***')
    return masked
  }
}
