import { z } from 'zod';
import { mutation, query } from '../procedure';
import { ZSessionGrant } from './account.contract';
import {
  passkeyMeta,
  ZDeletedPasskey,
  ZPasskey,
  ZPasskeyId,
  ZPasskeySignInInput,
  ZPasskeyVerifyInput,
  ZRegisterPasskeyInput,
  ZRenamePasskeyInput,
  ZSessionVerification,
  ZWebAuthnOptions,
} from './passkeys.contract';

export const passkeyProcedures = {
  listPasskeys: query({ meta: passkeyMeta.list, output: z.array(ZPasskey) }),
  passkeyRegistrationOptions: mutation({ meta: passkeyMeta.registrationOptions, output: ZWebAuthnOptions }),
  registerPasskey: mutation({ meta: passkeyMeta.register, input: ZRegisterPasskeyInput, output: ZPasskey }),
  renamePasskey: mutation({ meta: passkeyMeta.rename, input: ZRenamePasskeyInput, output: ZPasskey }),
  deletePasskey: mutation({ meta: passkeyMeta.delete, input: ZPasskeyId, output: ZDeletedPasskey }),
  passkeySignInOptions: mutation({ meta: passkeyMeta.signInOptions, output: ZWebAuthnOptions }),
  passkeySignIn: mutation({ meta: passkeyMeta.signIn, input: ZPasskeySignInInput, output: ZSessionGrant }),
  passkeyVerifyOptions: mutation({ meta: passkeyMeta.verifyOptions, output: ZWebAuthnOptions }),
  verifyPasskey: mutation({
    meta: passkeyMeta.verify,
    input: ZPasskeyVerifyInput,
    output: ZSessionVerification,
  }),
};
