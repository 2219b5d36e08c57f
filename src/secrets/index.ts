export { SecretMasker, encodedForms, secretEnvValues } from './masker.js'
export { findSecrets, redactPatterns } from './patterns.js'
export { scanAddedLines } from './scan.js'
export { base32, rot13 } from './encodings.js'
