import { Button, Card } from 'antd';

/** Spec §2: the already-registered message, in Persian, right to left. */
export const ALREADY_REGISTERED_FA =
  'شما قبلاً برای این تورنمنت ثبت‌نام کرده‌اید و انتخاب‌های شما ذخیره شده است.';

export function AlreadyRegistered({ onBack }: { onBack: () => void }) {
  return (
    <Card className="picker">
      <p lang="fa" dir="rtl" className="rtl already-registered">
        {ALREADY_REGISTERED_FA}
      </p>
      <Button onClick={onBack}>Back</Button>
    </Card>
  );
}
