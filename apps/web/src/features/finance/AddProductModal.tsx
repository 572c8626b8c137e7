import { useState } from 'react';
import { App, Button, Flex, Form, Input, Modal, Select } from 'antd';
import { COST_CATEGORIES, PRODUCT_NAME_MAX, financeMessages, type CreateProductBody } from '@cumulo/contract';
import { useCreateProduct } from './finance-api.ts';
import { refusalOr } from './finance-failure.ts';

type Category = CreateProductBody['category'];
const DEFAULT_CATEGORY: Category = 'Others';

/** Spec 002 §2 Finance "custom service modal": a product with a category and a name, to set budgets for. */
export function AddProductModal({ onClose }: { onClose: () => void }) {
  const { message } = App.useApp();
  const create = useCreateProduct();
  const [category, setCategory] = useState<Category>(DEFAULT_CATEGORY);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const submit = () => {
    const trimmed = name.trim();
    // Spec 002 §5: an empty name is refused here, before any call.
    if (!trimmed) {
      setProblem(financeMessages.productNameRequired);
      return;
    }
    create.mutate(
      { category, name: trimmed },
      {
        onSuccess: () => {
          void message.success(financeMessages.productSaved);
          onClose();
        },
        onError: (error) => void message.error(refusalOr(error, financeMessages.productFailed)),
      },
    );
  };

  return (
    <Modal title="Add product" open onCancel={onClose} footer={null} destroyOnHidden>
      <Form layout="vertical" onFinish={submit}>
        <Form.Item label="Category" htmlFor="finance-product-category">
          <Select<Category>
            id="finance-product-category"
            value={category}
            onChange={setCategory}
            options={COST_CATEGORIES.map((value) => ({ value, label: value }))}
          />
        </Form.Item>
        <Form.Item
          label="Name"
          htmlFor="finance-product-name"
          validateStatus={problem ? 'error' : undefined}
          help={problem ?? undefined}
        >
          <Input
            id="finance-product-name"
            maxLength={PRODUCT_NAME_MAX}
            value={name}
            onChange={(event) => {
              setProblem(null);
              setName(event.target.value);
            }}
          />
        </Form.Item>
        <Flex justify="end" gap={8}>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="primary" htmlType="submit" loading={create.isPending}>
            Save
          </Button>
        </Flex>
      </Form>
    </Modal>
  );
}
