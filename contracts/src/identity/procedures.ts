import { query } from '../procedure';
import { whoAmIMeta, ZIdentityView } from './identity.contract';

export const identityProcedures = {
  whoAmI: query({ meta: whoAmIMeta, output: ZIdentityView }),
};
