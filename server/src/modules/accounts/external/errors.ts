import { AppError } from '../../../errors';

/** A refused external sign-in: 400 with a short reason, nothing created. */
export const refused = (reason: string) => AppError.of('sign_in_refused', reason);

/** The provider could not be asked (network, 5xx): not the user's fault, worth a retry. */
export class ProviderUnreachableError extends Error {
  override name = 'ProviderUnreachableError';
}

/** The provider took our access token but would not describe the account. */
export class ProviderProfileError extends Error {
  override name = 'ProviderProfileError';
}
