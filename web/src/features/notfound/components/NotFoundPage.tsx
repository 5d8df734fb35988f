import { Button, Result } from 'antd';
import { useGo } from '../../../app/useGo';

/** Any path the app does not know. */
export function NotFoundPage() {
  const navigate = useGo();
  return (
    <div className="page">
      <Result
        status="404"
        title={<h1 className="result-title">404 Page Not Found</h1>}
        subTitle="The page you are looking for does not exist."
        extra={
          <Button type="primary" onClick={() => navigate('/')}>
            Back to Home
          </Button>
        }
      />
    </div>
  );
}
