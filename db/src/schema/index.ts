export * from './billing';
export * from './credentials';
export * from './hooks';
export * from './items';
export * from './limits';
export * from './orgs';
export * from './push';
export * from './settings';
