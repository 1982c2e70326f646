import { notifications } from '@mantine/notifications';

/**
 * Short feedback after an action: a success that confirms what happened, or a failure that says
 * why. Toasts are announced to screen readers (Mantine renders them in a live region) and close
 * by themselves; an error a user must act on belongs beside the form, not here.
 */
export const toast = {
  success(message: string, title?: string): void {
    notifications.show({ message, title, color: 'teal', autoClose: 4000 });
  },
  error(message: string, title = 'Something went wrong'): void {
    notifications.show({ message, title, color: 'red', autoClose: 8000 });
  },
};
