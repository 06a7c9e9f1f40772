export { type BridgeOptions, serveMcp } from './bridge';
