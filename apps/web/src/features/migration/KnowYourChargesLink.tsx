import { Link } from 'react-router';
import { migrationTexts } from './migration-texts.ts';

/** Spec 001 §2: the calculator is reached from this link text. */
export function KnowYourChargesLink() {
  return <Link to="/calc">{migrationTexts.chargesLink}</Link>;
}
