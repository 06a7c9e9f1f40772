export {
  type Approval,
  type ApprovalRequest,
  askApproval,
  awaitApproval,
  type GateGrant,
  type PendingApproval,
  startApproval,
} from './approval';
export { type BeckonClient, type ClientOptions, createClient, type Question } from './client';
export {
  BeckonError,
  ConflictError,
  type ErrorBody,
  type ErrorCode,
  GoneError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PlanLimitError,
  RateLimitError,
  ServerError,
  toBeckonError,
  UnauthorizedError,
  ValidationError,
} from './errors';
export type { StreamEvent, SubscribeOptions } from './events';
export type * from './types';
export { actionDigest, type BoundAction, type DecisionCheck, verifyDecision } from './verify-decision';
export { outcomeOf, type WaitOptions, type WaitOutcome } from './wait';
