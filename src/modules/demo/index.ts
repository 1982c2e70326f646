export { DemoModule } from './demo.module.js';
export { DemoService } from './demo.service.js';
export { DEMO_PASSWORD, DEMO_USERS } from './demo.data.js';
