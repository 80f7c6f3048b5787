// Deterministic workflow code only: no I/O, no Node built-ins, activities imported as types.
export { pingWorkflow } from './ping.workflow';
export { deliveryWorkflow, cancelDeliverySignal, type DeliveryWorkflowInput } from './delivery.workflow';
export { retentionWorkflow } from './retention.workflow';
