import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle, parsed; throws when there is none or one does not parse. */
export function readPemCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(CERT_BLOCK);
  if (!blocks) throw new Error('no PEM certificate (-----BEGIN CERTIFICATE-----) found');
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new Error(`certificate ${i + 1} of the PEM bundle does not parse (${(err as Error).message})`);
    }
  });
}

/** A PEM private key, parsed (an encrypted key is refused: there is no passphrase setting). */
export function readPemPrivateKey(pem: string): KeyObject {
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) throw new Error('no PEM private key (-----BEGIN … PRIVATE KEY-----) found');
  try {
    return createPrivateKey(pem);
  } catch (err) {
    throw new Error(`the private key does not parse (${(err as Error).message})`);
  }
}

/** Throws unless the first certificate of `certPem` is the public half of `key`. */
export function assertKeyMatchesCertificate(certPem: string, key: KeyObject): void {
  const [leaf] = readPemCertificates(certPem);
  if (!leaf.checkPrivateKey(key)) throw new Error(`the private key is not the key of the certificate (${leaf.subject.replace(/\n/g, ', ')})`);
}
