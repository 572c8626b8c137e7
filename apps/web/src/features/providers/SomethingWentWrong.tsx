import { Button, Modal } from 'antd';

const SOMETHING_WENT_WRONG = 'Something Went Wrong';

/** Spec 000 §8: account creation errors open a 'Something Went Wrong' popup with the server's message. */
export function SomethingWentWrong({ message, onClose }: { message: string | null; onClose: () => void }) {
  return (
    <Modal
      open={message !== null}
      title={SOMETHING_WENT_WRONG}
      onCancel={onClose}
      footer={
        <Button type="primary" onClick={onClose}>
          Close
        </Button>
      }
    >
      <p>{message}</p>
    </Modal>
  );
}
