import { mutation, query } from '../procedure';
import {
  twilioMeta,
  ZPhoneStatus,
  ZPutPhoneInput,
  ZPutTwilioConnectionInput,
  ZTwilioStatus,
  ZVerifyPhoneInput,
} from './twilio.contract';

export const twilioProcedures = {
  status: query({ meta: twilioMeta.status, output: ZTwilioStatus }),
  connect: mutation({ meta: twilioMeta.connect, input: ZPutTwilioConnectionInput, output: ZTwilioStatus }),
  disconnect: mutation({ meta: twilioMeta.disconnect, output: ZTwilioStatus }),
  phone: query({ meta: twilioMeta.phone, output: ZPhoneStatus }),
  putPhone: mutation({ meta: twilioMeta.putPhone, input: ZPutPhoneInput, output: ZPhoneStatus }),
  verifyPhone: mutation({ meta: twilioMeta.verifyPhone, input: ZVerifyPhoneInput, output: ZPhoneStatus }),
  deletePhone: mutation({ meta: twilioMeta.deletePhone, output: ZPhoneStatus }),
};
